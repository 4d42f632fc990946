/*
 * The IPC handlers of model endpoints, their models, windows and checks, of per-model settings, and of MCP servers.
 */

import { NotFoundError } from '../../shared/errors';
import { withModelSetting } from '../../shared/domain';
import type { SettingsStore } from '../agent/ports/settings';
import type { McpManager } from '../mcp/mcp-manager';
import type { ProviderRegistry } from '../providers/provider-registry';
import type { Handlers } from './router';

type ProviderChannel =
  | 'provider:list'
  | 'provider:save'
  | 'provider:remove'
  | 'provider:discover'
  | 'provider:test'
  | 'provider:models'
  | 'provider:window'
  | 'model:check'
  | 'model:checks'
  | 'model:configure'
  | 'mcp:list'
  | 'mcp:configure'
  | 'mcp:setEnabled';

export interface ProviderHandlerDependencies {
  readonly providers: ProviderRegistry;
  readonly settings: SettingsStore;
  readonly mcp: McpManager;
}

/** The handlers of what the agent draws on from outside: model endpoints, their models and checks, and MCP servers. */
export function providerHandlers(deps: ProviderHandlerDependencies): Pick<Handlers, ProviderChannel> {
  const { providers, settings, mcp } = deps;
  return {
    'provider:list': () => providers.list(),
    'provider:save': (input) => {
      const saved = providers.save(input);
      // A new endpoint's models are checked in the background; each result is announced as it comes.
      if (input.id === undefined) void providers.checkAll(saved.id);
      return saved;
    },
    'provider:remove': (input) => {
      providers.remove(input.providerId);
      return { removed: true as const };
    },
    'provider:discover': (input) => providers.discover(input.timeoutMs),
    'provider:test': (input) => providers.test(input),
    'provider:models': (input) => providers.models(input.providerId, AbortSignal.timeout(10_000)),
    'provider:window': (input) => {
      providers.describe(input);
      return providers.window(input, AbortSignal.timeout(10_000));
    },

    'model:check': (input) => providers.check(input.providerId, input.model, AbortSignal.timeout(5 * 60_000)),
    'model:checks': (input) => providers.checks(input.providerId),
    'model:configure': (input) => {
      const current = settings.get();
      if (!current.providers.some((provider) => provider.id === input.providerId)) throw new NotFoundError('Provider', input.providerId);
      const { providerId, model, ...change } = input;
      const defined = Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined));
      return settings.set({ ...current, modelSettings: withModelSetting(current, providerId, model, defined) });
    },

    'mcp:list': () => mcp.statuses(),
    'mcp:configure': async (input) => {
      settings.set({ ...settings.get(), mcpServers: input.mcpServers });
      await mcp.configure(input.mcpServers);
      return mcp.statuses();
    },
    'mcp:setEnabled': async (input) => {
      const current = settings.get();
      const server = current.mcpServers[input.name];
      if (!server) throw new NotFoundError('MCP server', input.name);
      const mcpServers = { ...current.mcpServers, [input.name]: { ...server, disabled: !input.enabled } };
      settings.set({ ...current, mcpServers });
      await mcp.configure(mcpServers);
      return mcp.statuses();
    },
  };
}
