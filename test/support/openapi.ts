// The generated OpenAPI document, and ajv validators for schemas inside it: `$ref`s to the
// document's components resolve against the document itself.
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { buildOpenApiDocument } from "@/lib/openapi/document";

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON.
export type Json = Record<string, any>;

export const doc = buildOpenApiDocument() as Json;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: "doc", components: doc.components });

const rewrite = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(rewrite)
    : v && typeof v === "object"
      ? Object.fromEntries(
          Object.entries(v).map(([k, x]) => [k, k === "$ref" && typeof x === "string" ? `doc${x}` : rewrite(x)]),
        )
      : v;

const validators = new Map<string, ValidateFunction>();

/** A validator for `schema` (a schema of the document), compiled once per key. */
export function validatorFor(schema: Json, key = JSON.stringify(schema)): ValidateFunction {
  let v = validators.get(key);
  if (!v) {
    v = ajv.compile(rewrite(schema) as Json);
    validators.set(key, v);
  }
  return v;
}
