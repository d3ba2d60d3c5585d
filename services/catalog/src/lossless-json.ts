import express, { type RequestHandler } from 'express';
import { JsonSyntaxError, parseJson } from '@floe/iceberg';
import { badRequest } from './errors';

// Commit bodies carry snapshot ids above 2^53; JSON.parse would round them.
// Catalog bodies are read as text and parsed losslessly (unsafe integers
// become bigint), so no id is ever changed on its way through the catalog.
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
        req.body = parseJson(req.body);
      } catch (err) {
        if (err instanceof JsonSyntaxError) throw badRequest(`Malformed JSON: ${err.message}`);
        throw err;
      }
      next();
    },
  ];
}
