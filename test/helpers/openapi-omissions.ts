// What the OpenAPI document leaves a reader without: operations without a summary or description,
// parameters and request body fields without a description, responses left at @fastify/swagger's "Default Response", and
// properties of named components without a description. test/openapi-reference.test.ts asserts
// none, with no exceptions: every field, generic `details` bags too, says what it holds.

type Schema = {
  $ref?: string;
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};
type Operation = {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { in: string; name: string; description?: string }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string }>;
};
export type OpenApiDocument = {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
};

/** Every property of a schema, inline nesting included, as [path, schema]; `$ref`s end the walk. */
function properties(schema: Schema, at: string): [string, Schema][] {
  const found: [string, Schema][] = [];
  const visit = (node: Schema | boolean | undefined, path: string): void => {
    if (!node || typeof node !== 'object' || node.$ref) return;
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      found.push([`${path}.${name}`, child]);
      visit(child, `${path}.${name}`);
    }
    visit(node.items, `${path}[]`);
    visit(node.additionalProperties, `${path}{}`);
    for (const list of [node.anyOf, node.oneOf, node.allOf]) for (const s of list ?? []) visit(s, path);
  };
  visit(schema, at);
  return found;
}

/** A property is described by its own text (beside a `$ref` too): a component's says what it is, not what it is for here. */
function described(schema: Schema): boolean {
  return Boolean(schema.description?.trim());
}

/** Counts of described / all properties of the named components. */
export function componentPropertyCoverage(doc: OpenApiDocument): { described: number; total: number } {
  let total = 0;
  let count = 0;
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {}))
    for (const [, property] of properties(schema, name)) {
      total++;
      if (described(property)) count++;
    }
  return { described: count, total };
}

/** One line per omission, e.g. `GET /v1/runs: no description`; empty when the document is complete. */
export function openApiOmissions(doc: OpenApiDocument): string[] {
  const omissions: string[] = [];
  for (const [path, operations] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(operations)) {
      const where = `${method.toUpperCase()} ${path}`;
      if (!op.summary?.trim()) omissions.push(`${where}: no summary`);
      if (!op.description?.trim()) omissions.push(`${where}: no description`);
      if (!op.tags?.length) omissions.push(`${where}: no tag`);
      for (const p of op.parameters ?? [])
        if (!p.description?.trim())
          omissions.push(`${where}: ${p.in} parameter ${p.name} has no description`);
      for (const media of Object.values(op.requestBody?.content ?? {}))
        for (const [path, property] of properties(media.schema ?? {}, 'body'))
          if (!described(property)) omissions.push(`${where}: ${path} has no description`);
      for (const [status, response] of Object.entries(op.responses ?? {}))
        if (!response.description?.trim() || response.description === 'Default Response')
          omissions.push(`${where}: response ${status} is titled "${response.description ?? ''}"`);
    }
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {}))
    for (const [path, property] of properties(schema, name))
      if (!described(property)) omissions.push(`component ${path} has no description`);
  return omissions;
}
