import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';

// TypeScript types of an OpenAPI document (openapi-typescript), for the CLI's
// client. A package of its own because openapi-typescript builds its output
// with TypeScript's compiler API, which TypeScript 7 (the project's compiler)
// no longer ships: here its TypeScript is 5.

/** The document's `paths` and `components` as TypeScript source. */
export async function typesOfDocument(document: OpenAPI3): Promise<string> {
  return astToString(await openapiTS(document, { alphabetize: true }));
}
