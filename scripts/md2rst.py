#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Convert this project's Markdown documents to reStructuredText.

    md2rst.py IN.md > OUT.rst

Used by scripts/make-patches.sh to turn configfs-layout.md into the
kernel's Documentation/admin-guide/mm/damon/configfs.rst, so that the page
in the patch series is always the contract in this repository.

It knows the subset of Markdown our documents use: ATX headings (#..####),
paragraphs, "- " bullet lists (nested by indentation), fenced code blocks,
pipe tables, `code`, **bold**.  Anything else is passed through as text;
the output is checked with docutils by scripts/patches-check.sh.
"""

import re
import sys

# Heading levels: "#" is the document title (over- and underlined), then
# the kernel's usual order of section adornments.
ADORN = {1: '=', 2: '=', 3: '-', 4: '~'}

# Characters that may stand right before an inline markup start-string and
# right after an end-string without escaping (docutils' inline markup
# recognition rules, restricted to ASCII).
BEFORE_OK = set(' \t\n-:/\'"<([{')
AFTER_OK = set(' \t\n-.,:;!?\\/\'")]}>')

CODE = re.compile(r'(`+)(.+?)\1', re.S)


def escape_text(s):
    """Escape what reStructuredText would read as markup in plain text."""
    s = s.replace('\\', '\\\\')
    s = s.replace('|', '\\|')
    s = re.sub(r'(?<!\*)\*(?!\*)', r'\\*', s)
    s = re.sub(r'(\w)_(?=\W|$)', r'\1\\_', s)
    return s


def glue(parts):
    """Join (kind, text) parts; add "\\ " where markup touches a word."""
    out = ''
    for i, (kind, text) in enumerate(parts):
        if kind != 'text':
            if out and out[-1] not in BEFORE_OK:
                out += '\\ '
            out += text
            nxt = parts[i + 1][1] if i + 1 < len(parts) else ''
            if nxt and nxt[0] not in AFTER_OK:
                out += '\\ '
        else:
            out += text
    return out


def inline(s):
    """Convert the inline Markdown of a block (lines joined by newlines)."""
    # **`word`**: reStructuredText cannot nest markup; the literal wins.
    s = re.sub(r'\*\*(`[^`]+`)\*\*', r'\1', s)
    parts = []
    pos = 0
    for m in CODE.finditer(s):
        parts.extend(bold_parts(s[pos:m.start()]))
        parts.append(('code', '``' + m.group(2) + '``'))
        pos = m.end()
    parts.extend(bold_parts(s[pos:]))
    return glue(parts)


def bold_parts(s):
    """**strong** and *emphasis* stay as they are; the rest is escaped."""
    parts = []
    pos = 0
    for m in re.finditer(r'\*\*(\S.*?)\*\*|(?<![*\w])\*(\S[^*]*?)\*(?![*\w])',
                         s, re.S):
        parts.append(('text', escape_text(s[pos:m.start()])))
        if m.group(1) is not None:
            parts.append(('bold', '**' + escape_text(m.group(1)) + '**'))
        else:
            parts.append(('em', '*' + escape_text(m.group(2)) + '*'))
        pos = m.end()
    parts.append(('text', escape_text(s[pos:])))
    return [p for p in parts if p[1]]


def split_row(line):
    """The cells of a pipe table row ("|" inside `code` does not split)."""
    line = line.strip()
    if line.startswith('|'):
        line = line[1:]
    if line.endswith('|'):
        line = line[:-1]
    cells, cur, in_code = [], '', False
    for ch in line:
        if ch == '`':
            in_code = not in_code
        if ch == '|' and not in_code:
            cells.append(cur.strip())
            cur = ''
        else:
            cur += ch
    cells.append(cur.strip())
    return cells


def table(rows, indent):
    """A pipe table as a list-table (header row, separator, body rows)."""
    out = [indent + '.. list-table::', indent + '   :header-rows: 1', '']
    for n, row in enumerate(rows):
        if n == 1:  # the |---|---| separator
            continue
        for c, cell in enumerate(split_row(row)):
            mark = '* -' if c == 0 else '  -'
            out.append(indent + '   ' + mark + ' ' + inline(cell))
    out.append('')
    return out


def indent_of(line):
    return len(line) - len(line.lstrip(' '))


def is_item(line):
    return re.match(r'^ *- ', line) is not None


def convert(lines):
    out = []
    i = 0
    title_done = False

    def blank():
        if out and out[-1] != '':
            out.append('')

    while i < len(lines):
        line = lines[i].rstrip('\n').rstrip()
        m = re.match(r'^(#{1,4}) (.*)$', line)
        if m:
            level = len(m.group(1))
            text = inline(m.group(2))
            blank()
            if level == 1 and not title_done:
                out += ['=' * len(text), text, '=' * len(text)]
                title_done = True
            else:
                out += [text, ADORN[level] * len(text)]
            out.append('')
            i += 1
            continue
        m = re.match(r'^( *)```', line)
        if m:
            ind = m.group(1)
            blank()
            out += [ind + '::', '']
            i += 1
            while i < len(lines) and not re.match(r'^ *```', lines[i]):
                code = lines[i].rstrip('\n').rstrip()
                out.append((ind + '   ' + code[len(ind):]) if code else '')
                i += 1
            i += 1  # the closing fence
            out.append('')
            continue
        if line.lstrip().startswith('|'):
            rows = []
            while i < len(lines) and lines[i].lstrip().startswith('|'):
                rows.append(lines[i].rstrip('\n'))
                i += 1
            blank()
            out += table(rows, ' ' * indent_of(rows[0]))
            continue
        if not line:
            blank()
            i += 1
            continue
        # Text: the lines up to the next blank line or other block,
        # converted together (a `code` span may go on over a line break).
        block = []
        while i < len(lines):
            t = lines[i].rstrip('\n').rstrip()
            if (not t or re.match(r'^(#{1,4} |\s*```|\s*\|)', t)):
                break
            block.append(t)
            i += 1
        for t in inline('\n'.join(block)).split('\n'):
            # A list item, or a line after a list at a smaller
            # indentation, starts a new block: reStructuredText needs the
            # blank line Markdown lets one leave out.
            prev = out[-1] if out else ''
            if prev and (is_item(t) or indent_of(t) < indent_of(prev)):
                out.append('')
            out.append(t)
    while out and out[-1] == '':
        out.pop()
    return out


def document(lines):
    """The whole reStructuredText document, with the kernel's SPDX line."""
    return ('.. SPDX-License-Identifier: GPL-2.0\n\n'
            + '\n'.join(convert(lines)) + '\n')


def main():
    with open(sys.argv[1], encoding='utf-8') as f:
        sys.stdout.write(document(f.readlines()))


if __name__ == '__main__':
    main()
