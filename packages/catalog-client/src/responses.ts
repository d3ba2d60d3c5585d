import { z } from 'zod';

// What the catalog answers besides a table (load-result.ts): a created
// namespace, and one page of a namespace or table listing, as the REST spec's
// CreateNamespaceResponse, ListNamespacesResponse and ListTablesResponse.

const Namespace = z.array(z.string());

/** A page's `next-page-token`: null or absent on the last page. */
const NextPageToken = z.string().nullish();

const CreateNamespaceResponseSchema = z.looseObject({
  namespace: Namespace,
  properties: z.record(z.string(), z.string()).optional(),
});

const ListNamespacesResponseSchema = z.looseObject({
  'next-page-token': NextPageToken,
  namespaces: z.array(Namespace).optional(),
});

const ListTablesResponseSchema = z.looseObject({
  'next-page-token': NextPageToken,
  identifiers: z.array(z.looseObject({ namespace: Namespace, name: z.string() })).optional(),
});

export type CreateNamespaceResponse = z.output<typeof CreateNamespaceResponseSchema>;
export type ListNamespacesResponse = z.output<typeof ListNamespacesResponseSchema>;
export type ListTablesResponse = z.output<typeof ListTablesResponseSchema>;

export const toCreateNamespaceResponse = (value: unknown): CreateNamespaceResponse => CreateNamespaceResponseSchema.parse(value);
export const toListNamespacesResponse = (value: unknown): ListNamespacesResponse => ListNamespacesResponseSchema.parse(value);
export const toListTablesResponse = (value: unknown): ListTablesResponse => ListTablesResponseSchema.parse(value);
