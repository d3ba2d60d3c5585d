// The reference page: Swagger UI (served from the gateway's own copy, no CDN)
// over the document at /v1/openapi.json. Requests made with "Try it out" go
// to this origin with the credential the reader gives under "Authorize".
window.addEventListener('load', () => {
  window.SwaggerUIBundle({
    url: '/v1/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    docExpansion: 'none',
    defaultModelsExpandDepth: 0,
    tryItOutEnabled: false,
    persistAuthorization: false,
  });
});
