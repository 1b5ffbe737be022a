import { createRequire } from 'node:module';
import SwaggerParser from '@apidevtools/swagger-parser';

/**
 * What `SwaggerParser.validate` leaves out for OpenAPI 3.1 (it checks the
 * document's structure against the 3.1 schema, but not its rules, and takes
 * any object as a JSON Schema): unique operation ids, path parameters that
 * match the path template, no parameter given twice, and every schema a
 * valid JSON Schema 2020-12 (compiled by the Ajv swagger-parser itself uses).
 */

const parserRequire = createRequire(createRequire(import.meta.url).resolve('@apidevtools/swagger-parser'));
const Ajv2020 = parserRequire('ajv/dist/2020') as new (options: Record<string, unknown>) => { compile(schema: unknown): unknown };

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export async function validateOpenApi(document: unknown): Promise<string[]> {
  await SwaggerParser.validate(structuredClone(document) as never);
  const doc = (await SwaggerParser.dereference(structuredClone(document) as never)) as any;
  const problems: string[] = [];
  const ids = new Set<string>();
  const schemas: Array<[string, unknown]> = Object.entries(doc.components?.schemas ?? {}).map(([name, schema]) => [`components.schemas.${name}`, schema]);

  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
    for (const method of METHODS.filter((m) => item[m])) {
      const op = item[method];
      const where = `${method.toUpperCase()} ${path}`;
      if (!op.operationId) problems.push(`${where}: no operationId`);
      else if (ids.has(op.operationId)) problems.push(`${where}: duplicate operationId ${op.operationId}`);
      else ids.add(op.operationId);
      const params: any[] = [...(item.parameters ?? []), ...(op.parameters ?? [])];
      const keys = params.map((p) => `${p.in}:${p.name}`);
      const repeated = keys.filter((key, i) => keys.indexOf(key) !== i);
      if (repeated.length > 0) problems.push(`${where}: parameters given twice: ${repeated.join(', ')}`);
      const inPath = params.filter((p) => p.in === 'path');
      const declared = inPath.map((p) => p.name).sort();
      if (JSON.stringify(declared) !== JSON.stringify(templated)) problems.push(`${where}: path parameters ${declared} for template ${templated}`);
      for (const p of inPath) if (p.required !== true) problems.push(`${where}: path parameter ${p.name} not required`);
      for (const p of params) schemas.push([`${where} parameter ${p.name}`, p.schema]);
      for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {})) schemas.push([`${where} body ${type}`, media.schema]);
      for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
        for (const [type, media] of Object.entries<any>(response.content ?? {})) schemas.push([`${where} ${status} ${type}`, media.schema]);
      }
    }
  }

  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, validateFormats: false });
  for (const [where, schema] of schemas) {
    if (schema === undefined) continue;
    try {
      ajv.compile(schema);
    } catch (err) {
      problems.push(`${where}: ${(err as Error).message}`);
    }
  }
  return problems;
}
