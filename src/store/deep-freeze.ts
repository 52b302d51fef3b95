/** Freezes a record and everything in it, so that mutating a shared cached copy fails loudly. */
export function deepFreeze<T>(value: T): T {
  // Byte arrays cannot be frozen (nor are they shared by a caller's mutation of a record's fields).
  if (value && typeof value === 'object' && !Object.isFrozen(value) && !ArrayBuffer.isView(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
