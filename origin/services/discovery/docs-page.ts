import { createHash } from 'node:crypto';

/**
 * `GET /docs`: a self-contained reference page. It loads `/openapi.json`
 * (again with the key the reader types, to see the saved queries that key
 * reaches), lists the operations by tag with their parameters, and offers a
 * "try it" form for `GET /q/<name>`. No CDN, no framework: the inline script
 * and style are allowed by their hashes, nothing else runs or loads. Text from
 * the document is only ever set as `textContent`.
 */

const STYLE = String.raw`
body { font: 15px/1.45 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f7f8fa; }
header { padding: 1rem 2rem; background: #1d2330; color: #fff; }
header h1 { margin: 0 0 .5rem; font-size: 1.4rem; }
header a { color: #9cc3ff; }
#keyform input { width: 22rem; max-width: 60vw; }
nav { padding: .5rem 2rem; display: flex; flex-wrap: wrap; gap: .25rem 1rem; border-bottom: 1px solid #dde1e8; background: #fff; }
main { padding: 0 2rem 3rem; }
h2 { margin: 1.5rem 0 .5rem; font-size: 1.1rem; }
details.op { background: #fff; border: 1px solid #dde1e8; border-radius: 6px; margin: .4rem 0; padding: .4rem .8rem; }
summary { cursor: pointer; display: flex; gap: .75rem; align-items: baseline; }
.method { font: bold 12px monospace; padding: 2px 6px; border-radius: 3px; color: #fff; background: #667; min-width: 3.5rem; text-align: center; }
.method.get { background: #2f7d4f; } .method.post { background: #2d5fb4; } .method.patch { background: #a66a00; } .method.delete { background: #b33; }
.sum { color: #555; }
.desc { white-space: pre-wrap; }
table { border-collapse: collapse; margin: .5rem 0; width: 100%; }
th, td { text-align: left; border-bottom: 1px solid #eceef2; padding: .25rem .5rem; vertical-align: top; }
form.try { border-top: 1px dashed #ccd; margin-top: .5rem; padding-top: .5rem; }
form.try label { display: inline-flex; flex-direction: column; margin: 0 .75rem .5rem 0; font-size: 13px; }
pre.out { background: #f0f2f5; padding: .5rem; max-height: 24rem; overflow: auto; white-space: pre-wrap; }
.deprecated { text-decoration: line-through; }
`;

const SCRIPT = String.raw`
(function () {
  'use strict';
  var state = { key: '' };
  var byId = function (id) { return document.getElementById(id); };
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') node.textContent = attrs[k]; else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return node;
  }
  function headers() { return state.key ? { 'X-API-Key': state.key } : {}; }
  function resolve(doc, item) {
    if (!item || typeof item.$ref !== 'string') return item;
    return item.$ref.replace(/^#\//, '').split('/').reduce(function (node, part) { return node && node[part]; }, doc);
  }
  function typeText(schema) {
    if (!schema) return '';
    var type = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type || 'any');
    var extra = [];
    if (schema.enum) extra.push('one of ' + schema.enum.map(function (v) { return JSON.stringify(v); }).join(', '));
    if (schema.minimum !== undefined) extra.push('min ' + schema.minimum);
    if (schema.maximum !== undefined) extra.push('max ' + schema.maximum);
    if (schema.minLength !== undefined) extra.push('min length ' + schema.minLength);
    if (schema.maxLength !== undefined) extra.push('max length ' + schema.maxLength);
    if (schema.pattern !== undefined) extra.push('pattern ' + schema.pattern);
    if (schema.default !== undefined) extra.push('default ' + JSON.stringify(schema.default));
    return extra.length ? type + ' (' + extra.join('; ') + ')' : type;
  }
  function table(head, rows) {
    var t = el('table', {}, [el('tr', {}, head.map(function (h) { return el('th', { text: h }); }))]);
    rows.forEach(function (cells) { t.appendChild(el('tr', {}, cells.map(function (c) { return el('td', { text: c }); }))); });
    return t;
  }
  function tryIt(path, params) {
    var form = el('form', { class: 'try' });
    var inputs = params.filter(function (p) { return p.in === 'query'; }).map(function (p) {
      var input = el('input', { name: p.name, placeholder: p.example === undefined ? '' : String(p.example) });
      if (p.required && p.example !== undefined) input.value = String(p.example);
      form.appendChild(el('label', {}, [p.name + (p.required ? ' *' : ''), input]));
      return { name: p.name, input: input };
    });
    var out = el('pre', { class: 'out' });
    form.appendChild(el('button', { type: 'submit', text: 'Send GET' }));
    form.appendChild(out);
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var query = new URLSearchParams();
      inputs.forEach(function (i) { if (i.input.value !== '') query.append(i.name, i.input.value); });
      var url = path + (query.toString() ? '?' + query.toString() : '');
      out.textContent = 'GET ' + url + ' ...';
      fetch(url, { headers: headers() }).then(function (res) {
        return res.text().then(function (text) {
          var shown = text.length > 20000 ? text.slice(0, 20000) + '\n[cut at 20000 characters]' : text;
          out.textContent = res.status + ' ' + (res.headers.get('content-type') || '') + '\n\n' + shown;
        });
      }).catch(function (err) { out.textContent = 'Request failed: ' + err.message; });
    });
    return form;
  }
  function operation(doc, entry) {
    var op = entry.op;
    var details = el('details', { class: 'op' });
    details.appendChild(el('summary', {}, [
      el('span', { class: 'method ' + entry.method, text: entry.method.toUpperCase() }),
      el('code', { class: op.deprecated ? 'deprecated' : '', text: decodeURIComponent(entry.path) }),
      el('span', { class: 'sum', text: (op.summary || '') + (op.security && op.security.length === 0 ? ' (public)' : '') })
    ]));
    if (op.description) details.appendChild(el('p', { class: 'desc', text: op.description }));
    var params = (op.parameters || []).map(function (p) { return resolve(doc, p); });
    if (params.length) {
      details.appendChild(table(['Parameter', 'In', 'Type', 'Required', 'Description'], params.map(function (p) {
        return [p.name, p.in, typeText(p.schema), p.required ? 'yes' : '', p.description || ''];
      })));
    }
    var media = op.requestBody && op.requestBody.content && op.requestBody.content['application/json'];
    var body = media && resolve(doc, media.schema);
    if (body && body.properties) {
      var required = body.required || [];
      details.appendChild(table(['Body field', 'Type', 'Required', 'Description'], Object.keys(body.properties).map(function (name) {
        var s = resolve(doc, body.properties[name]) || {};
        return [name, typeText(s), required.indexOf(name) >= 0 ? 'yes' : '', s.description || ''];
      })));
    }
    if (entry.method === 'get' && entry.path.indexOf('/q/') === 0) details.appendChild(tryIt(entry.path, params));
    return details;
  }
  function render(doc) {
    var order = (doc.tags || []).map(function (t) { return t.name; });
    var groups = {};
    var count = 0;
    Object.keys(doc.paths || {}).forEach(function (path) {
      Object.keys(doc.paths[path]).forEach(function (method) {
        var op = doc.paths[path][method];
        var tag = (op.tags && op.tags[0]) || 'Other';
        if (order.indexOf(tag) < 0) order.push(tag);
        (groups[tag] = groups[tag] || []).push({ path: path, method: method, op: op });
        count += 1;
      });
    });
    var nav = byId('nav');
    var main = byId('ops');
    nav.textContent = '';
    main.textContent = '';
    order.forEach(function (tag, i) {
      if (!groups[tag]) return;
      nav.appendChild(el('a', { href: '#tag-' + i, text: tag }));
      var section = el('section', { id: 'tag-' + i }, [el('h2', { text: tag })]);
      groups[tag].forEach(function (entry) { section.appendChild(operation(doc, entry)); });
      main.appendChild(section);
    });
    byId('status').textContent = doc.info.title + ' ' + doc.info.version + ': ' + count + ' operations' +
      (state.key ? ', saved queries your key reaches.' : '. Saved queries are listed for the key you enter.');
  }
  function load() {
    byId('status').textContent = 'Loading /openapi.json ...';
    fetch('/openapi.json', { headers: headers() })
      .then(function (res) { if (!res.ok) throw new Error('HTTP ' + res.status); return res.json(); })
      .then(render)
      .catch(function (err) { byId('status').textContent = 'Could not load /openapi.json: ' + err.message; });
  }
  byId('keyform').addEventListener('submit', function (event) {
    event.preventDefault();
    state.key = byId('key').value.trim();
    load();
  });
  load();
})();
`;

const BODY = `<header>
<h1>Sluice API reference</h1>
<form id="keyform"><label>API key <input id="key" type="password" autocomplete="off" spellcheck="false"></label>
<button type="submit">Load</button> <a href="/openapi.json">openapi.json</a></form>
<p id="status"></p>
</header>
<nav id="nav"></nav>
<main id="ops"></main>`;

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The page. */
export const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sluice API reference</title><style>${STYLE}</style></head>
<body>${BODY}<script>${SCRIPT}</script></body></html>
`;

/** Only the page's own inline script and style run; it may fetch from this origin and nothing else. */
export const DOCS_CSP = [
  "default-src 'none'",
  `script-src ${hash(SCRIPT)}`,
  `style-src ${hash(STYLE)}`,
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
