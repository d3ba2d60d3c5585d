import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import { apiDocument } from '@floe/api';

// The API's description, served by the gateway itself: the OpenAPI document
// at /v1/openapi.json (built once at start from packages/api, the same
// document docs/openapi.json holds), and a reference page at /docs/api
// rendered by Swagger UI from the gateway's own installed copy (no CDN).

/** The reference page's own files (services/gateway/reference). */
const REFERENCE_DIR = fileURLToPath(new URL('../reference', import.meta.url));
/** Swagger UI's browser bundle and styles. */
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
/** Only what the page loads of the package. */
const SWAGGER_UI_FILES = new Set(['/swagger-ui-bundle.js', '/swagger-ui.css']);

/** Scripts and styles from this origin; Swagger UI sets element styles from script and shows data: images. */
const REFERENCE_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export function mountApiReference(app: Express): void {
  const document = JSON.stringify(apiDocument());
  app.get('/v1/openapi.json', (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('application/json').send(document);
  });

  const headers = (res: express.Response) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Content-Security-Policy', REFERENCE_CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
  };
  const assets = express.static(SWAGGER_UI_DIR, { index: false, fallthrough: false, setHeaders: headers });
  app.use('/docs/api/assets', (req, res, next) => {
    if (!SWAGGER_UI_FILES.has(req.path)) return next();
    assets(req, res, next);
  });
  // The page itself at /docs/api (its links are absolute), and its script and styles beside it.
  app.get(['/docs/api', '/docs/api/'], (_req, res, next) => {
    headers(res);
    res.sendFile('index.html', { root: REFERENCE_DIR }, (err) => err && next(err));
  });
  app.use('/docs/api', express.static(REFERENCE_DIR, { index: false, redirect: false, fallthrough: true, setHeaders: headers }));
}
