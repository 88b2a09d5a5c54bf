// Module resolve hook for no-otel-child.mjs: every `@opentelemetry/*` package is "not installed".
export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@opentelemetry/')) {
    throw Object.assign(new Error(`Cannot find package '${specifier}' (refused by deny-otel-hooks.mjs)`), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return next(specifier, context);
}
