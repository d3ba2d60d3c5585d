import express, { type RequestHandler } from 'express';
import { MAX_JSON_DEPTH, checkJsonValue } from '@floe/http';
import { JsonSyntaxError, parseJson } from '@floe/iceberg';
import { badRequest } from './errors';

// Commit bodies carry snapshot ids above 2^53; JSON.parse would round them.
// Catalog bodies are read as text and parsed losslessly (unsafe integers
// become bigint), so no id is ever changed on its way through the catalog.
// The HTTP edge's body rules hold here as on every other service: at most
// MAX_JSON_DEPTH levels (the parser recurses, deeper input would overflow its
// stack) and no NUL in a string or key (namespaces, names and properties go
// to Postgres text).
export function losslessJson(limitBytes: number): RequestHandler[] {
  return [
    express.text({ type: ['application/json', 'application/*+json'], limit: limitBytes }),
    (req, _res, next) => {
      if (typeof req.body !== 'string') return next();
      if (req.body.trim() === '') {
        req.body = undefined;
        return next();
      }
      try {
        req.body = parseJson(req.body, { maxDepth: MAX_JSON_DEPTH });
      } catch (err) {
        if (err instanceof JsonSyntaxError) throw badRequest(`Malformed JSON: ${err.message}`);
        throw err;
      }
      checkJsonValue(req.body);
      next();
    },
  ];
}
