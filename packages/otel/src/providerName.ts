import {
  GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  GEN_AI_PROVIDER_NAME_VALUE_AWS_BEDROCK,
  GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_INFERENCE,
  GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_OPENAI,
  GEN_AI_PROVIDER_NAME_VALUE_COHERE,
  GEN_AI_PROVIDER_NAME_VALUE_DEEPSEEK,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_GEN_AI,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_VERTEX_AI,
  GEN_AI_PROVIDER_NAME_VALUE_GROQ,
  GEN_AI_PROVIDER_NAME_VALUE_IBM_WATSONX_AI,
  GEN_AI_PROVIDER_NAME_VALUE_MISTRAL_AI,
  GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
  GEN_AI_PROVIDER_NAME_VALUE_PERPLEXITY,
  GEN_AI_PROVIDER_NAME_VALUE_X_AI,
} from '@opentelemetry/semantic-conventions/incubating';

/**
 * `gen_ai.provider.name` when the step recorded no provider: the attribute is required on `chat`
 * and `invoke_agent`, and the conventions have no value of their own for "not known".
 */
export const UNKNOWN_PROVIDER = 'unknown';

const MAX_PROVIDER_LENGTH = 64;

/** The conventions' well-known values, by themselves (a provider recorded as one is kept). */
const WELL_KNOWN = new Set<string>([
  GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  GEN_AI_PROVIDER_NAME_VALUE_AWS_BEDROCK,
  GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_INFERENCE,
  GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_OPENAI,
  GEN_AI_PROVIDER_NAME_VALUE_COHERE,
  GEN_AI_PROVIDER_NAME_VALUE_DEEPSEEK,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_GEN_AI,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_VERTEX_AI,
  GEN_AI_PROVIDER_NAME_VALUE_GROQ,
  GEN_AI_PROVIDER_NAME_VALUE_IBM_WATSONX_AI,
  GEN_AI_PROVIDER_NAME_VALUE_MISTRAL_AI,
  'moonshot_ai',
  GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
  GEN_AI_PROVIDER_NAME_VALUE_PERPLEXITY,
  GEN_AI_PROVIDER_NAME_VALUE_X_AI,
]);

/**
 * The AI SDK's provider ids (`LanguageModel.provider`, `<provider>.<api>` as in `openai.chat`), by
 * their part before the first dot, mapped to the conventions' value. `google.vertex.*` is looked
 * up by its first two parts first.
 */
const AI_SDK_PROVIDERS = new Map<string, string>([
  ['openai', GEN_AI_PROVIDER_NAME_VALUE_OPENAI],
  ['azure', GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_OPENAI],
  ['azure-openai', GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_OPENAI],
  ['anthropic', GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC],
  ['amazon-bedrock', GEN_AI_PROVIDER_NAME_VALUE_AWS_BEDROCK],
  ['bedrock', GEN_AI_PROVIDER_NAME_VALUE_AWS_BEDROCK],
  ['google', GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI],
  ['google.vertex', GEN_AI_PROVIDER_NAME_VALUE_GCP_VERTEX_AI],
  ['vertex', GEN_AI_PROVIDER_NAME_VALUE_GCP_VERTEX_AI],
  ['mistral', GEN_AI_PROVIDER_NAME_VALUE_MISTRAL_AI],
  ['groq', GEN_AI_PROVIDER_NAME_VALUE_GROQ],
  ['xai', GEN_AI_PROVIDER_NAME_VALUE_X_AI],
  ['deepseek', GEN_AI_PROVIDER_NAME_VALUE_DEEPSEEK],
  ['cohere', GEN_AI_PROVIDER_NAME_VALUE_COHERE],
  ['perplexity', GEN_AI_PROVIDER_NAME_VALUE_PERPLEXITY],
  ['moonshotai', 'moonshot_ai'],
]);

/**
 * The `gen_ai.provider.name` of a recorded provider (an llm step's `provider`): the conventions'
 * well-known value where one matches (`openai.chat` → `openai`, `google.vertex.chat` →
 * `gcp.vertex_ai`), else the provider's own name (its part before the first dot, lower case, at
 * most 64 characters); {@link UNKNOWN_PROVIDER} when none was recorded.
 */
export function providerName(recorded: unknown): string {
  if (typeof recorded !== 'string') return UNKNOWN_PROVIDER;
  const id = recorded.trim().toLowerCase();
  if (id === '') return UNKNOWN_PROVIDER;
  if (WELL_KNOWN.has(id)) return id;
  const parts = id.split('.', 2);
  const known = AI_SDK_PROVIDERS.get(parts.join('.')) ?? AI_SDK_PROVIDERS.get(parts[0]!);
  if (known !== undefined) return known;
  const own = parts[0]!.slice(0, MAX_PROVIDER_LENGTH);
  return own === '' ? UNKNOWN_PROVIDER : own;
}
