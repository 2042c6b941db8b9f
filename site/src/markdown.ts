/**
 * Markdown to HTML for the docs page: the subset the repository's docs use (headings,
 * paragraphs, fenced and indented code, lists with continuation lines, tables,
 * blockquotes, inline code, emphasis, links). Text is escaped before any markup is added.
 */

const escape = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

export function slug(text: string): string {
  return text.toLowerCase().replace(/<[^>]+>/g, "").replace(/[^\w\s-]/g, "").trim().replace(/\s+/g, "-");
}

/** Links to another doc of docs/ become links within the docs page. */
function href(url: string): string {
  const m = /^(?:\.\.\/|\.\/)?(?:docs\/)?([\w-]+)\.md(#.*)?$/.exec(url);
  return m ? `docs.html#${m[1]}` : url;
}

export function inline(text: string): string {
  const codes: string[] = [];
  let s = text.replace(/`([^`]+)`/g, (_, c: string) => `\u0000${codes.push(`<code>${escape(c)}</code>`) - 1}\u0000`);
  s = escape(s);
  s = s.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, t: string, u: string) => `<a href="${href(u)}">${t}</a>`);
  s = s.replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
  s = s.replace(/(^|[\s(])\*([^*\s][^*]*)\*(?=[\s).,;:!?]|$)/g, "$1<em>$2</em>");
  s = s.replace(/(^|[\s(])_([^_\s][^_]*)_(?=[\s).,;:!?]|$)/g, "$1<em>$2</em>");
  return s.replace(/\u0000(\d+)\u0000/g, (_, i: string) => codes[Number(i)]);
}

const cells = (line: string): string[] => line.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());

export function render(md: string): string {
  const lines = md.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let i = 0;
  const isBlank = (l: string | undefined): boolean => l === undefined || !l.trim();
  const listItem = /^(\s*)([-*]|\d+\.)\s+(.*)$/;
  while (i < lines.length) {
    const line = lines[i];
    if (isBlank(line)) {
      i++;
      continue;
    }
    const fence = /^\s*(```|~~~)(\w*)/.exec(line);
    if (fence) {
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i].trim().startsWith(fence[1]); i++) body.push(lines[i]);
      i++;
      out.push(`<pre><code class="language-${fence[2] || "text"}">${escape(body.join("\n"))}</code></pre>`);
      continue;
    }
    if (/^ {4}/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && (/^ {4}/.test(lines[i]) || (isBlank(lines[i]) && /^ {4}/.test(lines[i + 1] ?? "")))) {
        body.push(lines[i].slice(4));
        i++;
      }
      out.push(`<pre><code>${escape(body.join("\n"))}</code></pre>`);
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      const level = Math.min(6, h[1].length + 1); // the page's own title is the h1
      out.push(`<h${level} id="${slug(h[2])}">${inline(h[2])}</h${level}>`);
      i++;
      continue;
    }
    if (line.trim().startsWith("|") && /^\s*\|?[\s:-]+\|[\s|:-]*$/.test(lines[i + 1] ?? "")) {
      const head = cells(line);
      const align = cells(lines[i + 1]).map((c) => (c.endsWith(":") ? ' class="num"' : ""));
      i += 2;
      const rows: string[] = [];
      while (i < lines.length && lines[i].trim().startsWith("|")) {
        rows.push(`<tr>${cells(lines[i]).map((c, k) => `<td${align[k] ?? ""}>${inline(c)}</td>`).join("")}</tr>`);
        i++;
      }
      out.push(`<div class="table-wrap"><table><thead><tr>${head.map((c, k) => `<th${align[k] ?? ""}>${inline(c)}</th>`).join("")}</tr></thead><tbody>${rows.join("")}</tbody></table></div>`);
      continue;
    }
    if (line.startsWith(">")) {
      const body: string[] = [];
      while (i < lines.length && lines[i].startsWith(">")) body.push(lines[i++].replace(/^>\s?/, ""));
      out.push(`<blockquote>${render(body.join("\n"))}</blockquote>`);
      continue;
    }
    const li = listItem.exec(line);
    if (li) {
      const ordered = /\d/.test(li[2]);
      const indent = li[1].length;
      const items: string[] = [];
      while (i < lines.length) {
        const m = listItem.exec(lines[i]);
        if (m && m[1].length === indent) {
          const body = [m[3]];
          i++;
          // continuation lines and nested lists: indented deeper than the marker
          const deeper = (l: string | undefined): boolean => (l ?? "").startsWith(" ".repeat(indent + 2));
          while (i < lines.length && (deeper(lines[i]) || (isBlank(lines[i]) && deeper(lines[i + 1])))) {
            body.push(lines[i].slice(Math.min(lines[i].length, indent + 2)));
            i++;
          }
          const nested = body.slice(1).some((l) => listItem.test(l) || l.startsWith("    ") || l.startsWith("```"));
          items.push(`<li>${nested ? render(body.join("\n")) : inline(body.join(" "))}</li>`);
        } else break;
      }
      out.push(ordered ? `<ol>${items.join("")}</ol>` : `<ul>${items.join("")}</ul>`);
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && !isBlank(lines[i]) && !/^(#{1,6}\s|```|~~~|\s*\||>)/.test(lines[i]) && !(para.length && listItem.test(lines[i]))) {
      para.push(lines[i].trim());
      i++;
    }
    out.push(`<p>${inline(para.join(" "))}</p>`);
  }
  return out.join("\n");
}
