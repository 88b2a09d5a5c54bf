import { CliSetupError } from './CliSetupError.js';

/**
 * The endpoint as given, when it is an http(s) URL.
 *
 * @throws CliSetupError from `checkedEndpoint` otherwise (exit 2), naming the flag.
 * @internal
 */
export function checkedEndpoint(endpoint: string, flag: string): string {
  let url: URL | null = null;
  try {
    url = new URL(endpoint);
  } catch {
    // refused below
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new CliSetupError(`${flag} must be an http(s) URL such as http://127.0.0.1:4318, got ${JSON.stringify(endpoint)}`);
  }
  return endpoint;
}

/**
 * The endpoint's refusal of an export, said as such (the OTLP exporter's errors name only the HTTP status).
 *
 * @internal
 */
export function otlpRefusal(error: unknown, endpoint: string, what: 'spans' | 'metrics' = 'spans'): Error {
  const message = error instanceof Error ? error.message : String(error);
  return /^there is no run /.test(message) ? new Error(message) : new Error(`the ${what} could not be sent to ${endpoint}: ${message}`);
}
