/**
 * happy-dom defines `nodeName` on each subclass and leaves `Node.prototype.nodeName` returning ''.
 * DOMPurify (like browsers allow) reads the getter from Node.prototype to resist clobbering, so under
 * happy-dom it would see every element as nameless and strip it. Make the base getter dispatch to
 * the subclass getter, as it effectively does in a browser. Test environment only.
 */
const proto = Node.prototype;
const own = Object.getOwnPropertyDescriptor(proto, 'nodeName');
if (own?.get && !(own.get as { keelShim?: boolean }).keelShim) {
  const get = function (this: Node): string {
    let p = Object.getPrototypeOf(this);
    while (p && p !== proto) {
      const d = Object.getOwnPropertyDescriptor(p, 'nodeName');
      if (d?.get) return d.get.call(this);
      p = Object.getPrototypeOf(p);
    }
    return own.get!.call(this);
  };
  (get as { keelShim?: boolean }).keelShim = true;
  Object.defineProperty(proto, 'nodeName', { ...own, get });
}
