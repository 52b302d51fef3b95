import { LIMITS, type ImageInput, type PublicSettings } from '../../src/protocol';
import { lookupModel } from '../../src/providers/catalog';

/** Image types the protocol accepts (common.ts ImageInput). */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
type ImageType = (typeof IMAGE_TYPES)[number];

export type ImageReadResult =
  | { ok: true; image: ImageInput }
  | { ok: false; reason: 'type' | 'size' };

/** A pasted or dropped file → base64 image input, or why it cannot be sent. */
export async function readImageFile(file: File): Promise<ImageReadResult> {
  if (!IMAGE_TYPES.includes(file.type as ImageType)) return { ok: false, reason: 'type' };
  // base64 grows by 4/3: check before reading a huge file into memory.
  if (Math.ceil(file.size / 3) * 4 > LIMITS.maxImageBase64Chars)
    return { ok: false, reason: 'size' };
  const dataUrl = await new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
  const comma = dataUrl.indexOf(',');
  return {
    ok: true,
    image: { mimeType: file.type as ImageType, dataBase64: dataUrl.slice(comma + 1) },
  };
}

/**
 * Whether the selected model takes images, by the same catalog and overrides the engine uses
 * (an unknown model counts as no vision there too). Null when no model is chosen yet: then we let
 * the engine answer.
 */
export function modelVision(settings: PublicSettings | null): boolean | null {
  const ref = settings?.defaultModel;
  if (!ref) return null;
  const provider = settings.providers.find((p) => p.id === ref.providerId);
  return lookupModel(ref.model, provider?.models ?? []).vision;
}
