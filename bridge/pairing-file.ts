/**
 * The bridge's side of a pairing: one random token per MCP client name, in a file only the user
 * can read (mode 0600) under the user's config directory. The extension never sees the token,
 * only its SHA-256 (src/protocol/bridge-wire.ts). Deleting the file (or `--new-pairing`) makes
 * the next start ask the user again.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomHex } from '../src/protocol/bridge-wire';

export interface Pairing {
  pairingId: string;
  token: string;
  createdAt: number;
}

interface PairingFile {
  v: 1;
  pairings: Record<string, Pairing>;
}

/** `$KEEL_BRIDGE_CONFIG`, else `<config dir>/keel/mcp-bridge.json`. */
export function defaultPairingPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.KEEL_BRIDGE_CONFIG) return env.KEEL_BRIDGE_CONFIG;
  const base =
    process.platform === 'win32'
      ? (env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'))
      : process.platform === 'darwin'
        ? join(homedir(), 'Library', 'Application Support')
        : (env.XDG_CONFIG_HOME ?? join(homedir(), '.config'));
  return join(base, 'keel', 'mcp-bridge.json');
}

async function load(path: string): Promise<PairingFile> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<PairingFile>;
    if (parsed && parsed.v === 1 && parsed.pairings && typeof parsed.pairings === 'object')
      return { v: 1, pairings: parsed.pairings };
  } catch {
    // Missing or unreadable: start a fresh file (the user pairs again).
  }
  return { v: 1, pairings: {} };
}

/**
 * The pairing for `clientName`, created (and written, 0600, atomically) when there is none or
 * when `fresh` asks for a new one.
 */
export async function pairingFor(
  path: string,
  clientName: string,
  o: { fresh?: boolean; now?: () => number } = {},
): Promise<Pairing> {
  const file = await load(path);
  const known = file.pairings[clientName];
  if (known && !o.fresh) return known;
  const pairing: Pairing = {
    pairingId: `pair_${randomHex(8)}`,
    token: randomHex(32),
    createdAt: (o.now ?? Date.now)(),
  };
  file.pairings[clientName] = pairing;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, path);
  return pairing;
}
