import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/** A schema of the served OpenAPI 3.0 document, as JSON. */
export type Schema = { $ref?: string; [key: string]: unknown };

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: Schema;
}

export interface DeclaredResponse {
  description: string;
  headers?: Record<string, { required?: boolean; schema: Schema }>;
  content?: Record<string, { schema: Schema }>;
}

export interface Operation {
  method: string;
  path: string;
  /** JSON pointer of the operation inside the document. */
  pointer: string;
  auth: 'public' | 'optional' | 'login' | 'premium' | 'admin';
  parameters: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, DeclaredResponse>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, Schema> };
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const DOCUMENT_ID = 'openapi.json';

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
export const pointerOf = (...segments: string[]) => `#/${segments.map(escapePointer).join('/')}`;

export function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, raw]) => ({
        method: method.toUpperCase(),
        path,
        pointer: pointerOf('paths', path, method),
        auth: raw['x-auth'] as Operation['auth'],
        parameters: (raw.parameters as Parameter[] | undefined) ?? [],
        ...(raw.requestBody ? { requestBody: raw.requestBody as Operation['requestBody'] } : {}),
        responses: raw.responses as Record<string, DeclaredResponse>,
      })),
  );
}

/**
 * A JSON Schema validator over the whole document: any schema in it is compiled by its JSON pointer, so the
 * `$ref`s into `#/components/schemas` resolve as an outside validator resolves them. OpenAPI 3.0's `nullable`
 * is Ajv's own keyword; formats are ajv-formats' full (calendar-checking) ones.
 */
export class DocumentValidator {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    this.ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
    addFormats.default(this.ajv, { mode: 'full' });
    this.ajv.addSchema(document as object, DOCUMENT_ID);
  }

  /** The schema at `pointer` ("#/paths/…"), with `$ref`s left as they are. */
  at(pointer: string): Schema {
    return pointer
      .slice(2)
      .split('/')
      .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], this.document) as Schema;
  }

  /** The schema a `$ref` names, followed until it is not a reference. */
  resolve(schema: Schema): Schema {
    let current = schema;
    while (current.$ref) current = this.at(current.$ref);
    return current;
  }

  /** Why `value` fails the schema at `pointer`, or null when it passes. */
  errorOf(pointer: string, value: unknown): string | null {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
      this.compiled.set(pointer, validate);
    }
    if (validate(value)) return null;
    return this.ajv.errorsText(validate.errors, { dataVar: 'value' });
  }
}
