import { safeImageSrc } from '../markdown/url-policy';

/**
 * `details` is the tool's UI-only payload and its shape is per tool: read defensively. Known
 * fields: `screenshot` (a data URL) and `highlight` (the element the tool acted on: a box, and
 * maybe its role / name / ref).
 */
export interface HighlightBox {
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  label?: string;
}

export interface ToolDetailsView {
  screenshot: string | null;
  highlight: HighlightBox | null;
  /** The viewport the box is measured in, when the tool said so (to overlay it on the screenshot). */
  viewport: { width: number; height: number } | null;
}

const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

function readBox(v: unknown): HighlightBox | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  const rect = (
    o.rect && typeof o.rect === 'object' ? o.rect : o.box && typeof o.box === 'object' ? o.box : o
  ) as Record<string, unknown>;
  const label = [
    str(o.role),
    str(o.name) && `“${str(o.name)}”`,
    str(o.ref) && `[${str(o.ref)}]`,
    str(o.label),
  ]
    .filter(Boolean)
    .join(' ');
  const box: HighlightBox = {
    x: num(rect.x) ?? num(rect.left),
    y: num(rect.y) ?? num(rect.top),
    width: num(rect.width),
    height: num(rect.height),
    label: label || undefined,
  };
  return box.label || box.width !== undefined ? box : null;
}

/** A browser tool's captured image (`{ mimeType, dataBase64 }`, details.ts) as a data URL. */
function capturedImage(v: unknown): string | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const mime = str(o.mimeType);
  const data = str(o.dataBase64);
  return mime && data && /^image\/(png|jpeg)$/.test(mime) && /^[A-Za-z0-9+/=]+$/.test(data)
    ? `data:${mime};base64,${data}`
    : undefined;
}

export function readToolDetails(details: unknown): ToolDetailsView {
  const o = details && typeof details === 'object' ? (details as Record<string, unknown>) : {};
  const shot =
    typeof o.screenshot === 'string'
      ? o.screenshot
      : (str((o.screenshot as Record<string, unknown> | undefined)?.dataUrl) ??
        capturedImage(o.image) ??
        capturedImage(o.thumbnail));
  const vp = (o.viewport ?? o.screenshotSize) as Record<string, unknown> | undefined;
  const vw = num(vp?.width);
  const vh = num(vp?.height);
  return {
    screenshot: shot && shot.startsWith('data:image/') ? safeImageSrc(shot) : null,
    // The element's name sits beside the box in browser tools' details (`target`).
    highlight: readBox(
      o.highlight && typeof o.highlight === 'object' && o.target && typeof o.target === 'object'
        ? { ...(o.target as object), ...(o.highlight as object) }
        : o.highlight,
    ),
    viewport: vw && vh ? { width: vw, height: vh } : null,
  };
}
