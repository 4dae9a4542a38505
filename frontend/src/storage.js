/**
 * Web Storage that never throws: a sandboxed frame or a full quota
 * loses what would have been remembered, not the conversation.
 */

/** @param {'localStorage' | 'sessionStorage'} area @param {string} key */
export function recall(area, key) {
  try {
    return globalThis[area]?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

/** @param {'localStorage' | 'sessionStorage'} area @param {string} key @param {string} value */
export function remember(area, key, value) {
  try {
    globalThis[area]?.setItem(key, value);
  } catch {
    /* storage refused: nothing more to do */
  }
}
