// Swagger UI for this service: the document beside the page, "Authorize" with the Token scheme
// (enter `Token <key>`), "Try it out" against this server. Nothing is fetched from elsewhere:
// validatorUrl null keeps the page from calling swagger.io's validator.
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: new URL('../openapi.json', window.location.href).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    validatorUrl: null,
    persistAuthorization: true,
    displayRequestDuration: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
  });
});
