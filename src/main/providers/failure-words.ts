/*
 * Failures to reach a model server, and the HTTP statuses it answers with, said in a person's words with the next step
 * to take. What the network layer reports (`ENOTFOUND`, `bad port`, an OpenSSL line) is read here and named for what it
 * means: a name that does not resolve, a port nothing listens on, https spoken to a plain http server.
 */

import type { ErrorInfo } from '../../shared/errors';

/** What a thrown error and its causes say: their codes and messages, outermost first. */
export interface FailureChain {
  readonly codes: readonly string[];
  readonly messages: readonly string[];
}

export function failureChain(error: unknown): FailureChain {
  const codes: string[] = [];
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 6; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    if (current.message.length > 0) messages.push(current.message);
    current = current.cause;
  }
  return { codes, messages };
}

interface Place {
  readonly endpoint: string;
  readonly host: string;
  /** host:port, with the scheme's port when the address names none. */
  readonly hostPort: string;
  readonly port: number | null;
  readonly https: boolean;
}

function placeOf(endpoint: string): Place {
  try {
    const url = new URL(endpoint);
    const https = url.protocol === 'https:';
    const port = url.port === '' ? (https ? 443 : 80) : Number(url.port);
    const host = url.hostname;
    return { endpoint, host, hostPort: `${host}:${port}`, port, https };
  } catch {
    return { endpoint, host: endpoint, hostPort: endpoint, port: null, https: false };
  }
}

/** How to start the server people usually run on a port, for the "nothing is listening" message. */
function startHint(port: number | null): string {
  switch (port) {
    case 11434:
      return ' Port 11434 is Ollama’s: start the Ollama app, or run `ollama serve`.';
    case 1234:
      return ' Port 1234 is LM Studio’s: in LM Studio, open the Developer tab and start the server.';
    case 8080:
      return ' Port 8080 is llama.cpp’s: run `llama-server -m <model.gguf> --port 8080`.';
    case 8000:
      return ' Port 8000 is vLLM’s: run `vllm serve <model>`.';
    default:
      return '';
  }
}

const tlsCertificateCodes = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * A failure before any answer came: the name, the connection or the TLS handshake. Null when the chain is not one of
 * these (the caller then says what it can).
 */
export function connectionFailure(chain: FailureChain, endpoint: string): ErrorInfo | null {
  const place = placeOf(endpoint);
  const has = (code: string): boolean => chain.codes.includes(code);
  const said = (pattern: RegExp): boolean => chain.messages.some((message) => pattern.test(message));
  if (has('ENOTFOUND') || has('EAI_AGAIN') || said(/getaddrinfo/))
    return {
      code: 'model_connection_failed',
      message: `No computer named “${place.host}” could be found, so ${endpoint} cannot be reached. Check the address for a typo; for another machine, check that this one is on its network.`,
      retryable: has('EAI_AGAIN'),
    };
  if (has('ECONNREFUSED'))
    return {
      code: 'model_connection_failed',
      message: `Nothing is listening at ${endpoint}: the model server is not running there, or uses another port.${startHint(place.port)}`,
      retryable: true,
    };
  if (said(/^bad port$/))
    return {
      code: 'model_connection_failed',
      message: `Port ${place.port ?? '?'} is one that connections are never made to, as it belongs to another kind of service. Run the model server on another port (such as 8080) and change the address to match.`,
    };
  if (has('EHOSTUNREACH') || has('ENETUNREACH') || has('EHOSTDOWN'))
    return {
      code: 'model_connection_failed',
      message: `The computer at ${place.host} cannot be reached from this network. Check that it is on and on the same network, or use an address this computer can reach.`,
      retryable: true,
    };
  if (has('ERR_SSL_WRONG_VERSION_NUMBER') || said(/wrong version number|packet length too long/i))
    return {
      code: 'model_connection_failed',
      message: place.https
        ? `${endpoint} starts with https://, but the server there speaks plain http. Change the address to start with http://.`
        : `The secure connection to ${endpoint} failed. Check whether the server expects http:// or https://.`,
    };
  const certificate = chain.codes.find((code) => tlsCertificateCodes.has(code));
  if (certificate !== undefined)
    return {
      code: 'model_connection_failed',
      message: `The certificate of ${place.host} is not trusted (${certificateProblem(certificate)}), so nothing was sent. For a server on this computer, use http://; otherwise give the server a certificate this computer trusts.`,
    };
  if (has('UND_ERR_CONNECT_TIMEOUT') || has('ETIMEDOUT'))
    return {
      code: 'model_timeout',
      message: `${place.hostPort} did not accept a connection in time. Check that the address is right and that no firewall is in the way.`,
      retryable: true,
    };
  return null;
}

function certificateProblem(code: string): string {
  if (code === 'CERT_HAS_EXPIRED') return 'it has expired';
  if (code === 'CERT_NOT_YET_VALID') return 'it is not valid yet';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return 'it is for another name';
  return 'it is self-signed or from an unknown issuer';
}

/** A model the server says it does not have, by what Ollama, vLLM, LM Studio, llama.cpp and Anthropic answer. */
const unknownModel = /model\b.*\b(not found|does not exist|not loaded|unknown)|model_not_found|not_found_error.*model|^model: /i;

/** An HTTP status the server answered with, and its own words; null for statuses not named here. */
export function statusFailure(status: number, detail: string, endpoint: string): ErrorInfo | null {
  const words = detail.trim() === '' ? '' : ` The server said: ${detail.trim()}`;
  if (status === 401 || status === 403)
    return {
      code: 'model_auth_failed',
      message: `${endpoint} refused the API key (${status}). Check the key in Settings → Endpoints; a server on this computer usually needs none, so leave it empty there.${words}`,
    };
  if (status === 404 && unknownModel.test(detail))
    return {
      code: 'model_request_rejected',
      message: `The model is not on ${endpoint} (404). Pick one the server lists, or download it first (for Ollama: \`ollama pull <model>\`).${words}`,
    };
  if (status === 404)
    return {
      code: 'model_request_rejected',
      message: `${endpoint} has no such page (404): check the address and the endpoint's kind in Settings → Endpoints (an OpenAI-compatible address usually ends in /v1).${words}`,
    };
  if (status === 429)
    return {
      code: 'model_rate_limited',
      message: `${endpoint} is taking no more requests for now (429, too many requests). The request is tried again after a pause.${words}`,
      retryable: true,
    };
  if (status >= 500)
    return {
      code: 'model_server_error',
      message: `The model server at ${endpoint} failed (${status}). Its own log says why; a common cause is too little memory to load the model.${words}`,
      retryable: true,
    };
  return null;
}
