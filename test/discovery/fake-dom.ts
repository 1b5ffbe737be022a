/**
 * Just enough of a DOM to run the `/docs` page script in Node: elements with
 * children, attributes, `textContent`, `value` and event listeners. No browser
 * is started; this checks the script's logic against a real document.
 */
export class FakeElement {
  children: FakeElement[] = [];
  attributes: Record<string, string> = {};
  listeners: Record<string, Array<(event: unknown) => void>> = {};
  value = '';
  private ownText = '';

  constructor(readonly tag: string) {}

  get textContent(): string {
    return this.ownText + this.children.map((child) => child.textContent).join('');
  }

  set textContent(text: string) {
    this.ownText = String(text);
    this.children = [];
  }

  appendChild(child: FakeElement): FakeElement {
    this.children.push(child);
    return child;
  }

  setAttribute(name: string, value: unknown): void {
    this.attributes[name] = String(value);
  }

  addEventListener(type: string, listener: (event: unknown) => void): void {
    (this.listeners[type] ??= []).push(listener);
  }

  /** Fires `submit` the way a browser would after a click on the form's button. */
  submit(): void {
    for (const listener of this.listeners.submit ?? []) listener({ preventDefault() {} });
  }

  /** Every descendant (depth first) matching `test`. */
  findAll(test: (element: FakeElement) => boolean): FakeElement[] {
    return this.children.flatMap((child) => [...(test(child) ? [child] : []), ...child.findAll(test)]);
  }
}

export function fakeDocument(ids: string[]) {
  const byId = Object.fromEntries(ids.map((id) => [id, new FakeElement('div')]));
  return {
    byId,
    document: {
      createElement: (tag: string) => new FakeElement(tag),
      createTextNode: (text: string) => Object.assign(new FakeElement('#text'), { textContent: text }),
      getElementById: (id: string) => byId[id],
    },
  };
}

/** Lets pending promise callbacks and I/O run until `done()` holds (or fails after 5 s). */
export async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
