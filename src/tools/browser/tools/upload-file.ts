import { z } from 'zod';
import type { ActionAck } from '../../../protocol/page-messages';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { describeRef, refContext } from '../element-target';
import { runPageAction, type PerformedAction } from '../page-action';
import { RefParam, TabIdParam } from '../params';
import { pageTarget } from '../target';

const FileSpec = z.object({
  name: z.string().min(1).max(255),
  mimeType: z.string().max(100).default('application/octet-stream'),
  text: z.string().max(5_000_000).optional().describe('File content as text (UTF-8).'),
  dataBase64: z.string().max(14_000_000).optional().describe('File content as base64.'),
});

const Params = z.object({
  ref: RefParam.describe('The file input (a button line with [type=file] in the snapshot).'),
  paths: z
    .array(z.string().min(1).max(4096))
    .max(20)
    .optional()
    .describe("Absolute paths of files on the user's computer."),
  files: z.array(FileSpec).max(20).optional().describe('Files you generate, with their content.'),
  tabId: TabIdParam,
});
type Params = z.infer<typeof Params>;

function toBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/**
 * browser_upload_file: choose files in a file input. Local files go through the debugger
 * (DOM.setFileInputFiles; Chrome requires "Allow access to file URLs" for that), generated files
 * through the page. Always asks the user: files leave the computer.
 */
export function uploadFileTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_upload_file',
    label: 'Upload file',
    description:
      'Choose files for a file input by ref: local files by absolute path (paths), or files you create (files: name + text or dataBase64). The user is always asked first. Never guess paths: ask the user which file to use.',
    onDemand: { brief: 'choose files for a file input' },
    parameters: Params,
    level: 'L2',
    effects: 'write',
    recovery: 'never-retry',
    async resolveTarget(params, ctx) {
      const r = await refContext(deps, params, ctx);
      const target = await pageTarget(deps.host, r.tabId, r.frameId);
      const names = params.paths?.length
        ? params.paths.join(', ')
        : (params.files ?? []).map((f) => f.name).join(', ');
      target.alwaysAsk = params.paths?.length
        ? `uploads files from this computer to the page: ${names}`
        : `uploads files to the page: ${names}`;
      return target;
    },
    async execute(_id, params, signal, _onUpdate, ctx) {
      const hasPaths = Boolean(params.paths?.length);
      const hasFiles = Boolean(params.files?.length);
      if (hasPaths === hasFiles)
        throw new Error('Give either paths (local files) or files (generated content), not both.');
      const r = await refContext(deps, params, ctx);
      const el = await describeRef(deps, r);
      if (!el.isFileInput)
        throw new Error(`${r.modelRef} is not a file input (it is ${el.role} "${el.name}").`);
      return runPageAction(
        deps,
        {
          ...r,
          localRef: r.local,
          verb: 'Chose files for',
          dialogProbe: hasPaths ? () => deps.debuggers.dialogOf(r.tabId) : undefined,
          perform: async (): Promise<PerformedAction> => {
            if (hasFiles) {
              const files = (params.files ?? []).map((f) => ({
                name: f.name,
                mimeType: f.mimeType,
                dataBase64: f.dataBase64 ?? toBase64(f.text ?? ''),
              }));
              return deps.client.call<ActionAck>(
                r.tabId,
                r.frameId,
                { op: 'set_files', ref: r.local, docId: r.docId, files },
                { signal, modelRef: r.modelRef },
              );
            }
            return setLocalFiles(
              deps,
              r.tabId,
              r.frameId,
              r.local,
              r.docId,
              params.paths ?? [],
              ctx.runId,
              signal,
            );
          },
        },
        signal,
      );
    },
  };
}

async function setLocalFiles(
  deps: BrowserToolDeps,
  tabId: number,
  frameId: number,
  ref: string,
  docId: string | undefined,
  paths: string[],
  runId: string,
  signal: AbortSignal,
): Promise<PerformedAction> {
  const bad = paths.find((p) => !/^(\/|[A-Za-z]:[\\/])/.test(p));
  if (bad) throw new Error(`"${bad}" is not an absolute path.`);
  // The content script tags the element so the debugger can find its DOM node.
  const token = Array.from(crypto.getRandomValues(new Uint8Array(10)), (b) =>
    b.toString(16).padStart(2, '0'),
  ).join('');
  const ack = await deps.client.call<ActionAck>(
    tabId,
    frameId,
    { op: 'mark', ref, docId, token },
    { signal },
  );
  try {
    await deps.debuggers.acquire(tabId, runId);
    await deps.debuggers.send(tabId, 'DOM.getDocument', { depth: 0 });
    const search = await deps.debuggers.send<{ searchId: string; resultCount: number }>(
      tabId,
      'DOM.performSearch',
      { query: `[data-keel-mark="${token}"]` },
    );
    try {
      if (!search.resultCount)
        throw new Error(
          'The file input is inside a frame the debugger cannot reach; the upload is not possible there.',
        );
      const { nodeIds } = await deps.debuggers.send<{ nodeIds: number[] }>(
        tabId,
        'DOM.getSearchResults',
        { searchId: search.searchId, fromIndex: 0, toIndex: 1 },
      );
      await deps.debuggers
        .send(tabId, 'DOM.setFileInputFiles', { files: paths, nodeId: nodeIds[0] })
        .catch((e: unknown) => {
          const why = e instanceof Error ? e.message : String(e);
          throw new Error(
            /not allowed|permission/i.test(why)
              ? 'Chrome refused to read local files: enable "Allow access to file URLs" for this extension in chrome://extensions, then retry.'
              : `Could not set the files: ${why}`,
          );
        });
    } finally {
      await deps.debuggers
        .send(tabId, 'DOM.discardSearchResults', { searchId: search.searchId })
        .catch(() => undefined);
    }
  } finally {
    await deps.client.call(tabId, frameId, { op: 'unmark', token }).catch(() => undefined);
  }
  return {
    element: ack.element,
    note: `chose ${paths.map((p) => p.split(/[\\/]/).pop()).join(', ')}`,
  };
}
