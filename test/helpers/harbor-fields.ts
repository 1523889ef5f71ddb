// Checks a JSON value against the field lists of Harbor 0.9's pydantic models
// (packages/contracts/test-data/harbor-0.9/fields.json, made by the extractor next to it): required
// fields present, every value of its declared type, and no key a model does not declare. Unknown
// keys are refused for every model (not only where Harbor says extra="forbid"): what the export
// writes must be exactly Harbor's shape, so a misspelt key fails here instead of vanishing in Harbor.
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface Field {
  name: string;
  type: string;
  required: boolean;
  references: string[];
}
interface Model {
  name: string;
  kind: 'pydantic' | 'typeddict' | 'enum' | string;
  fields?: Field[];
  model_config?: Record<string, unknown> | null;
  enum_members?: { name: string; value: unknown }[];
  typeddict_total?: boolean;
}
interface FieldLists {
  harbor_version: string;
  models: Record<string, Model>;
  type_aliases: Record<string, string>;
}

const FIELDS_FILE = path.resolve(
  import.meta.dirname,
  '../../packages/contracts/test-data/harbor-0.9/fields.json',
);

let lists: FieldLists | undefined;
function fieldLists(): FieldLists {
  lists ??= JSON.parse(readFileSync(FIELDS_FILE, 'utf8')) as FieldLists;
  return lists;
}

/** Harbor's model by class name (`TrialResult`); the names the export checks are unique. */
function modelNamed(name: string, references: readonly string[] = []): Model | string | undefined {
  const { models, type_aliases } = fieldLists();
  const ref = references.find((r) => r.endsWith(`:${name}`));
  if (ref && models[ref]) return models[ref];
  const alias = Object.entries(type_aliases).find(([k]) => k.endsWith(`:${name}`));
  if (alias) return alias[1];
  const found = Object.entries(models).filter(([k]) => k.endsWith(`:${name}`));
  return found.length === 1 ? found[0]?.[1] : undefined;
}

// ------------------------------------------------------------------------------------------------
// Python type expressions: `A | B`, `list[X]`, `dict[K, V]`, `Literal['a', 1]`, `NotRequired[X]`

type TypeExpr =
  | { kind: 'name'; name: string; args: TypeExpr[] }
  | { kind: 'literal'; value: string | number | boolean | null }
  | { kind: 'union'; options: TypeExpr[] };

function tokenize(src: string): string[] {
  const tokens: string[] = [];
  const re = /\s*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[A-Za-z_][\w.]*|-?\d+(?:\.\d+)?|[[\],|])/y;
  let m: RegExpExecArray | null = re.exec(src);
  while (m) {
    tokens.push(m[1] as string);
    if (re.lastIndex >= src.length) break;
    m = re.exec(src);
  }
  return tokens;
}

export function parseType(src: string): TypeExpr {
  const tokens = tokenize(src);
  let i = 0;
  const union = (): TypeExpr => {
    const options = [atom()];
    while (tokens[i] === '|') {
      i++;
      options.push(atom());
    }
    return options.length === 1 ? (options[0] as TypeExpr) : { kind: 'union', options };
  };
  const atom = (): TypeExpr => {
    const t = tokens[i++] ?? '';
    if (/^['"]/.test(t)) {
      const inner = t.slice(1, -1);
      // a quoted forward reference inside list['X'] is a type; in Literal[...] it is a value
      return { kind: 'literal', value: inner };
    }
    if (/^-?\d/.test(t)) return { kind: 'literal', value: Number(t) };
    if (t === 'True' || t === 'False') return { kind: 'literal', value: t === 'True' };
    const args: TypeExpr[] = [];
    if (tokens[i] === '[') {
      i++;
      args.push(union());
      while (tokens[i] === ',') {
        i++;
        args.push(union());
      }
      if (tokens[i++] !== ']') throw new Error(`cannot parse type ${src}`);
    }
    return { kind: 'name', name: t, args };
  };
  const out = union();
  if (i !== tokens.length) throw new Error(`cannot parse type ${src}`);
  return out;
}

// ------------------------------------------------------------------------------------------------
// The check

const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function checkScalar(name: string, value: unknown): boolean | undefined {
  switch (name) {
    case 'None':
      return value === null;
    case 'str':
    case 'Path':
      return typeof value === 'string';
    case 'int':
      return typeof value === 'number' && Number.isInteger(value);
    case 'float':
      return typeof value === 'number' && Number.isFinite(value);
    case 'bool':
      return typeof value === 'boolean';
    case 'UUID':
      return typeof value === 'string' && UUID.test(value);
    case 'datetime':
      return typeof value === 'string' && ISO_DATETIME.test(value) && !Number.isNaN(Date.parse(value));
    case 'Any':
      return true;
    default:
      return undefined;
  }
}

function checkType(value: unknown, t: TypeExpr, refs: readonly string[], at: string, errors: string[]): void {
  if (t.kind === 'union') {
    for (const option of t.options) {
      const sub: string[] = [];
      checkType(value, option, refs, at, sub);
      if (sub.length === 0) return;
    }
    errors.push(`${at}: ${JSON.stringify(value)?.slice(0, 80)} matches none of the union's types`);
    return;
  }
  if (t.kind === 'literal') {
    // a quoted name outside Literal is a forward reference
    if (typeof t.value === 'string' && modelNamed(t.value, refs)) {
      checkType(value, { kind: 'name', name: t.value, args: [] }, refs, at, errors);
      return;
    }
    if (value !== t.value)
      errors.push(`${at}: expected ${JSON.stringify(t.value)}, got ${JSON.stringify(value)}`);
    return;
  }
  const scalar = checkScalar(t.name, value);
  if (scalar !== undefined) {
    if (!scalar) errors.push(`${at}: expected ${t.name}, got ${JSON.stringify(value)?.slice(0, 80)}`);
    return;
  }
  const [a, b] = t.args;
  switch (t.name) {
    case 'Literal':
      if (!t.args.some((arg) => arg.kind === 'literal' && arg.value === value))
        errors.push(`${at}: ${JSON.stringify(value)} is not one of the allowed values`);
      return;
    case 'NotRequired': {
      checkType(value, a as TypeExpr, refs, at, errors);
      return;
    }
    case 'list':
    case 'set':
      if (!Array.isArray(value)) {
        errors.push(`${at}: expected a list`);
        return;
      }
      for (const [i, v] of value.entries()) checkType(v, a as TypeExpr, refs, `${at}[${i}]`, errors);
      return;
    case 'dict':
      if (!isObject(value)) {
        errors.push(`${at}: expected an object`);
        return;
      }
      for (const [k, v] of Object.entries(value)) {
        if (a?.kind === 'name' && (a.name === 'int' || a.name === 'float') && Number.isNaN(Number(k)))
          errors.push(`${at}: key ${JSON.stringify(k)} is not a number`);
        checkType(v, b as TypeExpr, refs, `${at}.${k}`, errors);
      }
      return;
  }
  const model = modelNamed(t.name, refs);
  if (model === undefined) {
    errors.push(`${at}: unknown type ${t.name}`);
    return;
  }
  if (typeof model === 'string') {
    checkType(value, parseType(model), refs, at, errors);
    return;
  }
  checkModel(value, model, at, errors);
}

function checkModel(value: unknown, model: Model, at: string, errors: string[]): void {
  if (model.kind === 'enum') {
    if (!model.enum_members?.some((m) => m.value === value))
      errors.push(`${at}: ${JSON.stringify(value)} is not a ${model.name}`);
    return;
  }
  if (!isObject(value)) {
    errors.push(`${at}: expected a ${model.name} object`);
    return;
  }
  const fields = new Map((model.fields ?? []).map((f) => [f.name, f]));
  for (const key of Object.keys(value)) {
    if (!fields.has(key)) errors.push(`${at}: ${model.name} has no field ${JSON.stringify(key)}`);
  }
  for (const f of fields.values()) {
    const optional =
      model.kind === 'typeddict'
        ? f.type.startsWith('NotRequired[') || model.typeddict_total === false
        : !f.required;
    if (!(f.name in value)) {
      if (!optional) errors.push(`${at}: ${model.name}.${f.name} is required`);
      continue;
    }
    checkType(value[f.name], parseType(f.type), f.references, `${at}.${f.name}`, errors);
  }
}

/** The problems of `value` as Harbor 0.9's model `modelName` (empty: it fits). */
export function harborFieldErrors(modelName: string, value: unknown, at = modelName): string[] {
  const model = modelNamed(modelName);
  if (!model || typeof model === 'string') throw new Error(`no Harbor model ${modelName} in the field lists`);
  const errors: string[] = [];
  checkModel(value, model, at, errors);
  return errors;
}

export function harborVersionOfFieldLists(): string {
  return fieldLists().harbor_version;
}
