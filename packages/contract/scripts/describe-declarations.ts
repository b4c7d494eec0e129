/**
 * Writes each zod `.describe()` text into the built declaration files as JSDoc (decision C37), so an editor shows
 * it on the exported types (`Entry['amount']`, a route's body) as it shows a hand-written comment. Runs after tsup
 * (`pnpm build`, `prepack`): for each `declare const X: …` of dist/*.d.ts whose runtime value the package exports,
 * it walks the declared type beside the value and puts the description above every property that has one, in
 * the schema's shape and in its output and input types.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

type Insertion = { at: number; text: string };
type ZodLike = { _def?: Record<string, unknown>; description?: string; shape?: Record<string, unknown> };

const isZod = (value: unknown): value is ZodLike =>
  typeof value === 'object' && value !== null && '_def' in value && typeof (value as ZodLike)._def === 'object';

/** The schema inside wrappers that keep the same value (optional, nullable, default, effects, pipelines). */
const unwrap = (value: unknown): unknown => {
  let current = value;
  for (let depth = 0; depth < 20 && isZod(current); depth++) {
    const def = current._def as Record<string, unknown>;
    const inner = def.innerType ?? def.schema ?? def.in ?? (def.typeName === 'ZodArray' ? def.type : undefined);
    if (!inner) break;
    current = inner;
  }
  return current;
};

/** The description of a field: on the field itself or on a wrapper inside it. */
const descriptionOf = (value: unknown): string | undefined => {
  let current = value;
  for (let depth = 0; depth < 20 && isZod(current); depth++) {
    if (current.description) return current.description;
    const def = current._def as Record<string, unknown>;
    current = def.innerType ?? def.schema ?? def.in;
  }
  return undefined;
};

/** The keys a declared object type is matched against: a zod object's shape, or a plain object's own keys. */
const fieldsOf = (value: unknown): Record<string, unknown> | undefined => {
  const inner = unwrap(value);
  if (isZod(inner)) {
    const shape = (inner._def as { shape?: () => Record<string, unknown> }).shape;
    return typeof shape === 'function' ? shape() : undefined;
  }
  return typeof inner === 'object' && inner !== null ? (inner as Record<string, unknown>) : undefined;
};

const propertyName = (name: ts.PropertyName): string | undefined =>
  ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) ? name.text : undefined;

const jsDoc = (text: string, indent: string): string => {
  const lines = text.replaceAll('*/', '*\\/').split('\n');
  if (lines.length === 1) return `/** ${lines[0]} */\n${indent}`;
  return `/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join('\n')}\n${indent} */\n${indent}`;
};

class Annotator {
  readonly insertions: Insertion[] = [];
  private readonly seen = new Set<number>();

  constructor(private readonly file: ts.SourceFile) {}

  /** Walks `type` beside the runtime `value`. */
  visit(type: ts.TypeNode, value: unknown): void {
    for (const child of this.children(type)) {
      if (ts.isTypeLiteralNode(child)) this.literal(child, value);
      else this.visit(child, value);
    }
  }

  /** The type nodes `type` stands for: itself when it is an object literal, else the types inside it. */
  private children(type: ts.TypeNode): readonly ts.TypeNode[] {
    if (ts.isTypeLiteralNode(type)) return [type];
    if (ts.isUnionTypeNode(type) || ts.isIntersectionTypeNode(type)) return type.types;
    if (ts.isArrayTypeNode(type)) return [type.elementType];
    if (ts.isParenthesizedTypeNode(type)) return [type.type];
    if (ts.isTypeReferenceNode(type)) return type.typeArguments ?? [];
    return [];
  }

  private literal(type: ts.TypeLiteralNode, value: unknown): void {
    const fields = fieldsOf(value);
    if (!fields) return;
    for (const member of type.members) {
      if (!ts.isPropertySignature(member) || !member.type) continue;
      const key = propertyName(member.name);
      if (key === undefined || !(key in fields)) continue;
      const field = fields[key];
      this.describe(member, descriptionOf(field));
      this.visit(member.type, field);
    }
  }

  private describe(member: ts.PropertySignature, description: string | undefined): void {
    const at = member.getStart(this.file);
    if (!description || this.seen.has(at) || ts.getJSDocCommentsAndTags(member).length > 0) return;
    this.seen.add(at);
    const lineStart = this.file.text.lastIndexOf('\n', at) + 1;
    this.insertions.push({ at, text: jsDoc(description, this.file.text.slice(lineStart, at)) });
  }
}

/** The declaration text with JSDoc from `values` (the package's exports, by name). */
export const describeDeclarations = (source: string, values: Record<string, unknown>): string => {
  const file = ts.createSourceFile('index.d.ts', source, ts.ScriptTarget.Latest, true);
  const annotator = new Annotator(file);
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (!ts.isIdentifier(declaration.name) || !declaration.type) continue;
      // The declaration bundler renames a clashing local `X` to `X$1`.
      const name = declaration.name.text.replace(/\$\d+$/, '');
      if (name in values) annotator.visit(declaration.type, values[name]);
    }
  }
  let text = source;
  for (const { at, text: doc } of annotator.insertions.sort((a, b) => b.at - a.at)) {
    text = text.slice(0, at) + doc + text.slice(at);
  }
  return text;
};

const main = async (): Promise<void> => {
  const dist = fileURLToPath(new URL('../dist/', import.meta.url));
  const values = (await import(pathToFileURL(join(dist, 'index.js')).href)) as Record<string, unknown>;
  const files = (await readdir(dist)).filter((file) => file.endsWith('.d.ts'));
  let described = 0;
  for (const file of files) {
    const path = join(dist, file);
    const before = await readFile(path, 'utf8');
    const after = describeDeclarations(before, values);
    described += (after.match(/\/\*\*/g)?.length ?? 0) - (before.match(/\/\*\*/g)?.length ?? 0);
    if (after !== before) await writeFile(path, after);
  }
  console.info(`describe-declarations: ${described} JSDoc comments from zod descriptions in ${files.length} files`);
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
