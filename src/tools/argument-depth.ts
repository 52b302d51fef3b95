/**
 * A bound on how deeply tool arguments may nest. Arguments come from the model (which a page can
 * steer); validation, canonical digests and storage all walk them recursively, so a value nested
 * thousands deep would overflow the stack somewhere in the run. Measured here iteratively, before
 * anything else touches the arguments, and reported as invalid arguments.
 */

export const MAX_ARGUMENT_DEPTH = 64;

/** Why `value` nests too deeply to be a tool's arguments, or undefined. Never recurses. */
export function argumentDepthError(value: unknown, max = MAX_ARGUMENT_DEPTH): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return `the arguments are nested more than ${max} levels deep`;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return undefined;
}

/**
 * The same bound on arguments still in JSON text, by counting brackets outside strings: checked
 * before JSON.parse, so a value too deep to handle is never built (parsing, storing and digesting
 * it recurse).
 */
export function jsonDepthError(json: string, max = MAX_ARGUMENT_DEPTH): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      // Bracket n opens a value at depth n - 1, as argumentDepthError counts.
      if (++depth > max) return `the arguments are nested more than ${max} levels deep`;
    } else if (c === '}' || c === ']') depth--;
  }
  return undefined;
}
