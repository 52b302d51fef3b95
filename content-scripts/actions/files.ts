/**
 * Sets files on an <input type=file> from bytes the agent provides (generated content), via a
 * DataTransfer, and fires input/change like a real choice. Local files from disk go through the
 * debugger instead (DOM.setFileInputFiles): a page script cannot read the disk.
 */
import type { AgentContext } from '../agent-context';
import type { ActionAck } from '../../src/protocol/page-messages';
import { describeElement } from './describe';
import { bringIntoView, type Deferred } from './pointer';

export interface FileSpec {
  name: string;
  mimeType: string;
  dataBase64: string;
}

function decode(b64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function setFiles(
  ctx: AgentContext,
  ref: string,
  docId: string | undefined,
  files: FileSpec[],
): Deferred<ActionAck> {
  const el = ctx.resolve(ref, docId);
  if (el.localName !== 'input' || (el as HTMLInputElement).type !== 'file') {
    ctx.fail('not_actionable', `Element ${ref} (${describeElement(el)}) is not a file input.`);
  }
  const input = el as HTMLInputElement;
  if (input.disabled) ctx.fail('not_actionable', `Element ${ref} is disabled.`);
  if (files.length > 1 && !input.multiple)
    ctx.fail('bad_request', `Element ${ref} accepts one file.`);
  const view = (input.ownerDocument.defaultView ?? window) as Window & typeof globalThis;
  let list: FileList;
  try {
    const dt = new view.DataTransfer();
    for (const f of files)
      dt.items.add(
        new view.File([decode(f.dataBase64)], f.name, {
          type: f.mimeType || 'application/octet-stream',
        }),
      );
    list = dt.files;
  } catch {
    return ctx.fail('bad_request', 'A file is not valid base64 data.');
  }
  bringIntoView(input.labels?.[0] ?? input);
  return {
    result: {
      docId: ctx.registry.docId,
      url: ctx.env.win.location.href,
      element: ctx.report(input),
      note: `chose ${files.map((f) => f.name).join(', ')}`,
    },
    doc: input.ownerDocument,
    run: () => {
      input.files = list;
      input.dispatchEvent(new view.Event('input', { bubbles: true, composed: true }));
      input.dispatchEvent(new view.Event('change', { bubbles: true }));
    },
  };
}
