// Fills what Go may leave null in the MCP wire types (SPEC §6), so the UI
// can rely on arrays and maps being there.
import type { MCPImportResult, MCPServer } from '../types'
import { MCP_SECRET_MASK } from '../types'

export function normalizeMCPServer(s: Partial<MCPServer> | null | undefined): MCPServer {
  return {
    name: s?.name ?? '',
    transport: s?.transport === 'http' ? 'http' : 'stdio',
    ...(s?.command ? { command: s.command } : {}),
    args: Array.isArray(s?.args) ? [...s.args] : [],
    ...(s?.url ? { url: s.url } : {}),
    env_keys: Array.isArray(s?.env_keys) ? [...s.env_keys] : [],
    header_keys: Array.isArray(s?.header_keys) ? [...s.header_keys] : [],
    enabled: s?.enabled !== false,
    status: s?.status ?? (s?.enabled === false ? 'disabled' : 'connecting'),
    ...(s?.error ? { error: s.error } : {}),
    tools: Array.isArray(s?.tools) ? s.tools.map((t) => ({ ...t, description: t.description ?? '', model_name: t.model_name ?? '' })) : [],
  }
}

export function normalizeImportResult(r: Partial<MCPImportResult> | null | undefined): MCPImportResult {
  return {
    added: Array.isArray(r?.added) ? [...r.added] : [],
    skipped: r?.skipped && typeof r.skipped === 'object' ? { ...r.skipped } : {},
  }
}

/**
 * The value sent for an env or header key whose stored secret stays as it
 * is: the API never returns secret values, so an edit sends the mask.
 */
export const KEEP_SECRET = MCP_SECRET_MASK
