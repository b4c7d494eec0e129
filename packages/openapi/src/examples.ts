/**
 * Examples for the document (decision C36): every component schema gets `example`, every operation's JSON
 * request body and success responses a media-type `example`, every problem response one with its real status
 * and a code the route can send. Values come from `example-values.ts`; the contract's zod files stay as they are.
 */
import { problemCodeInfo } from '@nestegg/contract';
import { OMIT, valuesByProperty, valuesInContext } from './example-values.js';
import {
  callerText,
  type ExampleStep,
  exampleScenario,
  labelOf,
  MissingReference,
  recordedExamples,
  resolve,
} from './scenario/index.js';

type Schema = { [key: string]: unknown };
type Media = { schema?: Schema; example?: unknown };
type Response = { content?: Record<string, Media> };
type Parameter = { name: string; in: string; example?: unknown };
type Operation = {
  operationId?: string;
  description?: string;
  'x-example-caller'?: string;
  'x-auth'?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, Response>;
};
type Document = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

const REF_PREFIX = '#/components/schemas/';
const JSON_MEDIA = 'application/json';
const PROBLEM_MEDIA = 'application/problem+json';
const MISSING = Symbol('missing');

/** The titles the api's error handler sends with each status. */
const statusTitles: Record<string, string> = {
  '400': 'Bad Request',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'Not Found',
  '405': 'Method Not Allowed',
  '409': 'Conflict',
  '413': 'Content Too Large',
  '415': 'Unsupported Media Type',
  '422': 'Unprocessable Content',
  '429': 'Too Many Requests',
  '500': 'Internal Server Error',
  '503': 'Service Unavailable',
};

/** Which code a problem example shows when the response allows several for its status. */
const preferredCodes = ['VALIDATION_FAILED', 'NOT_FOUND', 'CONFLICT', 'OVERLOADED'];
const forbiddenByAuth: Record<string, string> = { premium: 'PREMIUM_REQUIRED', admin: 'ADMIN_REQUIRED' };

const pathParameterValues: Record<string, string> = {
  id: '42',
  key: '1024-3b9f0c2d8e7a41f6b5c4d3e2f1a0b9c8',
  code: '005930',
};

class ExampleBuilder {
  /** Properties whose example came from no listed value (a test keeps this empty). */
  readonly gaps: string[] = [];
  private readonly byComponent = new Map<string, unknown>();

  constructor(private readonly components: Record<string, Schema>) {}

  component(name: string): unknown {
    if (!this.byComponent.has(name)) {
      const schema = this.components[name];
      if (!schema) throw new Error(`no component ${name}`);
      this.byComponent.set(name, this.of(schema, name, name));
    }
    return this.byComponent.get(name);
  }

  /** An example of `schema`; `context` is the nearest component or operation, `where` the path for gaps. */
  of(schema: Schema, context: string, where: string): unknown {
    const ref = schema.$ref;
    if (typeof ref === 'string') return this.component(ref.slice(REF_PREFIX.length));
    for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
      const parts = schema[key] as Schema[] | undefined;
      if (parts?.[0])
        return key === 'allOf' && parts.length > 1
          ? this.merged(parts, context, where)
          : this.of(parts[0], context, where);
    }
    if (Array.isArray(schema.enum)) return schema.enum[0];
    switch (schema.type) {
      case 'object':
        return this.object(schema, context, where);
      case 'array':
        return [this.of((schema.items as Schema | undefined) ?? {}, context, `${where}[]`)];
      case 'integer':
      case 'number':
        return typeof schema.minimum === 'number' ? Math.max(schema.minimum, 1) : 1;
      case 'boolean':
        return false;
      default:
        return this.string(schema, where);
    }
  }

  private merged(parts: Schema[], context: string, where: string): unknown {
    return Object.assign({}, ...parts.map((part) => this.of(part, context, where)));
  }

  private object(schema: Schema, context: string, where: string): unknown {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    if (Object.keys(properties).length === 0 && schema.additionalProperties) {
      return { locale: this.of(schema.additionalProperties as Schema, context, `${where}.*`) };
    }
    const example: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(properties)) {
      const listed = this.listed(context, name, property);
      if (listed === OMIT) continue;
      example[name] = listed === MISSING ? this.of(property, context, `${where}.${name}`) : listed;
    }
    return example;
  }

  /** The listed value for `context.name` or `name`, unless it is not one of the schema's enum values. */
  private listed(context: string, name: string, schema: Schema): unknown {
    const key = `${context}.${name}`;
    const value =
      key in valuesInContext ? valuesInContext[key] : name in valuesByProperty ? valuesByProperty[name] : MISSING;
    if (value === MISSING || value === OMIT || value === null) return value;
    const allowed = this.enumOf(schema);
    if (allowed && !allowed.includes(value)) return MISSING;
    return this.fits(value, schema) ? value : MISSING;
  }

  /** Whether a listed value has the schema's JSON type (`tags` of an entry are strings, of a tag group objects). */
  private fits(value: unknown, schema: Schema): boolean {
    const target = this.resolved(schema);
    const type = target.type;
    if (Array.isArray(value)) {
      return (
        type === 'array' && (value.length === 0 || this.fits(value[0], (target.items as Schema | undefined) ?? {}))
      );
    }
    if (typeof value === 'object') return type === 'object' || type === undefined;
    if (typeof value === 'number') return type === 'integer' || type === 'number';
    return type === undefined || typeof value === type;
  }

  private resolved(schema: Schema): Schema {
    // A reference used with a description sits in `allOf`, a nullable one first in `anyOf` (C21, C42).
    const wrapped = ['allOf', 'anyOf', 'oneOf'].map((key) => (schema[key] as Schema[] | undefined)?.[0]?.$ref);
    const ref = [schema.$ref, ...wrapped].find((candidate): candidate is string => typeof candidate === 'string');
    return ref ? (this.components[ref.slice(REF_PREFIX.length)] ?? schema) : schema;
  }

  private enumOf(schema: Schema): unknown[] | undefined {
    const target = this.resolved(schema);
    return Array.isArray(target.enum) ? target.enum : undefined;
  }

  private string(schema: Schema, where: string): string {
    switch (schema.format) {
      case 'date':
        return '2026-05-14';
      case 'date-time':
        return '2026-05-14T03:12:45Z';
      case 'binary':
        return '';
      default:
        if (schema.pattern === '^[A-Z]{3}$') return 'KRW';
        this.gaps.push(where);
        return where;
    }
  }
}

/** The codes a problem response's schema allows: its own `code` enum, or every code. */
const allowedCodes = (schema: Schema | undefined, components: Record<string, Schema>): string[] => {
  const all = Object.keys(problemCodeInfo);
  if (!schema) return all;
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const name = ref.slice(REF_PREFIX.length);
    return name === 'Problem' ? all : allowedCodes(components[name], components);
  }
  for (const part of (schema.allOf ?? []) as Schema[]) {
    const codes = allowedCodes(part, components);
    if (codes !== all && codes.length < all.length) return codes;
  }
  const code = (schema.properties as Record<string, Schema> | undefined)?.code;
  if (code && Array.isArray(code.enum)) return code.enum as string[];
  if (code && typeof code.$ref === 'string' && code.$ref !== `${REF_PREFIX}ProblemCode`) {
    const target = components[code.$ref.slice(REF_PREFIX.length)];
    if (Array.isArray(target?.enum)) return target.enum as string[];
  }
  return all;
};

/** A code the route sends with `status`: from the response's own list, the generic one for the status first. */
export const problemCodeFor = (
  status: string,
  schema: Schema | undefined,
  auth: string,
  components: Record<string, Schema>,
): string => {
  const info = problemCodeInfo as Record<string, { status: number }>;
  const candidates = allowedCodes(schema, components).filter((code) => String(info[code]?.status) === status);
  const preferred = [forbiddenByAuth[auth], ...preferredCodes].find((code) => code && candidates.includes(code));
  const code = preferred ?? candidates[0];
  if (!code) throw new Error(`no problem code is sent with status ${status}`);
  return code;
};

const instancePath = (path: string): string =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => pathParameterValues[name] ?? '42');

/** The field a VALIDATION_FAILED example names: the body's first required field, else the first parameter. */
const invalidField = (operation: Operation, components: Record<string, Schema>): string => {
  let body = operation.requestBody?.content[JSON_MEDIA]?.schema;
  if (typeof body?.$ref === 'string') body = components[body.$ref.slice(REF_PREFIX.length)];
  const required = body?.required as string[] | undefined;
  if (required?.[0]) return `body.${required[0]}`;
  const parameter = operation.parameters?.find((p) => p.in === 'query' || p.in === 'path');
  return parameter ? `${parameter.in === 'path' ? 'params' : 'query'}.${parameter.name}` : 'body';
};

const problemExample = (
  status: string,
  code: string,
  path: string,
  operation: Operation,
  components: Record<string, Schema>,
) => {
  const detail = (problemCodeInfo as Record<string, { description: string }>)[code]?.description ?? '';
  return {
    type: 'about:blank',
    title: statusTitles[status] ?? 'Error',
    status: Number(status),
    code,
    detail,
    instance: instancePath(path),
    ...(code === 'VALIDATION_FAILED'
      ? { errors: [{ path: invalidField(operation, components), message: 'Required' }] }
      : {}),
  };
};

/** Each operation's documented step of the example scenario (decision C44). */
const documentedSteps = new Map(exampleScenario.filter((step) => !step.setup).map((step) => [step.operation, step]));

/**
 * The operation's examples from its scenario step: the request as the step sends it, its parameters, and the
 * answer the api gave it (`recorded.json`). False when the step has no recording yet (the builder's examples stay).
 */
function addScenarioExamples(operation: Operation, step: ExampleStep): boolean {
  const recorded = recordedExamples[labelOf(step)];
  if (!recorded) return false;
  let request: { body: unknown; parameters: Record<string, unknown> };
  try {
    request = {
      body: resolve(step.body, recordedExamples),
      parameters: resolve({ ...step.params, ...step.query }, recordedExamples) as Record<string, unknown>,
    };
  } catch (error) {
    if (error instanceof MissingReference) return false;
    throw error;
  }
  const media = operation.requestBody?.content[JSON_MEDIA];
  if (media && request.body !== undefined) media.example = request.body;
  for (const parameter of operation.parameters ?? []) {
    if (parameter.name in request.parameters) parameter.example = request.parameters[parameter.name];
  }
  const answer = operation.responses[String(step.status)]?.content?.[JSON_MEDIA];
  if (answer && recorded.body !== undefined) answer.example = recorded.body;
  operation['x-example-caller'] = step.as;
  const sentence = `Example: sent by ${callerText[step.as]}.`;
  operation.description = operation.description ? `${operation.description}\n\n${sentence}` : sentence;
  return true;
}

const addOperationExamples = (
  builder: ExampleBuilder,
  path: string,
  operation: Operation,
  components: Record<string, Schema>,
) => {
  const id = operation.operationId ?? path;
  const step = documentedSteps.get(id);
  if (step) addScenarioExamples(operation, step);
  const request = operation.requestBody?.content[JSON_MEDIA];
  if (request?.schema && !('example' in request)) request.example = builder.of(request.schema, id, `${id} request`);
  for (const [status, response] of Object.entries(operation.responses)) {
    const success = response.content?.[JSON_MEDIA];
    if (success?.schema && !('example' in success)) success.example = builder.of(success.schema, id, `${id} ${status}`);
    const problem = response.content?.[PROBLEM_MEDIA];
    if (problem) {
      const code = problemCodeFor(status, problem.schema, operation['x-auth'] ?? 'public', components);
      problem.example = problemExample(status, code, path, operation, components);
    }
  }
};

/** Adds the examples in place; returns the properties that had no listed value (none, in a complete list). */
export const addExamples = (document: Document): string[] => {
  const components = document.components?.schemas ?? {};
  const builder = new ExampleBuilder(components);
  for (const name of Object.keys(components)) {
    const example = builder.component(name);
    components[name] = { ...components[name], example };
  }
  for (const [path, item] of Object.entries(document.paths)) {
    for (const operation of Object.values(item)) addOperationExamples(builder, path, operation, components);
  }
  return builder.gaps;
};
