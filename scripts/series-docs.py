#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The documentation layer of the patch series (scripts/make-patches.sh).

    series-docs.py TREE TOP

Edits the kernel tree TREE (a 6.12 tree with our mm/damon in it) so that
its DAMON documentation describes our DAMON, from this repository TOP:

- Documentation/admin-guide/mm/damon/configfs.rst: TOP/configfs-layout.md,
  the interface contract, converted by md2rst.py; the admin guide's index
  lists it instead of the pages of the interfaces that are gone;
- the pages and the ABI file of those interfaces are removed: the sysfs
  and debugfs interfaces (usage.rst, ABI/testing/sysfs-kernel-mm-damon),
  the DAMON_RECLAIM and DAMON_LRU_SORT modules, and the getting-started
  page, whose commands need the sysfs interface;
- Documentation/mm/damon/design.rst keeps upstream's description of the
  concepts, says which of them this DAMON implements, and points to the
  configfs page where it pointed to the removed ones;
- Documentation/mm/damon/api.rst documents the functions of the files that
  have kernel-doc comments.

Every edit must find exactly the text it expects, so that a change in the
base tree stops the series generation instead of silently doing nothing.
The translations are left as they are, as is usual for them.
"""

import os
import re
import sys

sys.dont_write_bytecode = True  # nothing written into scripts/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import md2rst  # noqa: E402

tree, top = sys.argv[1], sys.argv[2]
CONFIGFS_DOC = '/admin-guide/mm/damon/configfs'


def path(rel):
    return os.path.join(tree, rel)


def read(rel):
    with open(path(rel), encoding='utf-8') as f:
        return f.read()


def write(rel, text):
    # A new file, not a write through a hard link into a KSRC copy.
    if os.path.exists(path(rel)):
        os.unlink(path(rel))
    with open(path(rel), 'w', encoding='utf-8') as f:
        f.write(text)


def fail(msg):
    sys.exit('series-docs.py: ' + msg)


def replace_once(rel, text, old, new):
    if text.count(old) != 1:
        fail('%s: expected once, found %d times:\n%s'
             % (rel, text.count(old), old))
    return text.replace(old, new)


# ---------------------------------------------------------------- admin guide

with open(os.path.join(top, 'configfs-layout.md'), encoding='utf-8') as f:
    write('Documentation/admin-guide/mm/damon/configfs.rst',
          md2rst.document(f.readlines()))

REMOVED_PAGES = ['start', 'usage', 'reclaim', 'lru_sort']
rel = 'Documentation/admin-guide/mm/damon/index.rst'
text = read(rel)
text = replace_once(rel, text,
                    ''.join('   %s\n' % p for p in REMOVED_PAGES),
                    '   configfs\n')
write(rel, text)

for p in REMOVED_PAGES:
    os.remove(path('Documentation/admin-guide/mm/damon/%s.rst' % p))
os.remove(path('Documentation/ABI/testing/sysfs-kernel-mm-damon'))

rel = 'MAINTAINERS'
text = read(rel)
text = replace_once(rel, text,
                    'F:\tDocumentation/ABI/testing/sysfs-kernel-mm-damon\n', '')
write(rel, text)

# ---------------------------------------------------------------- design.rst

rel = 'Documentation/mm/damon/design.rst'
text = read(rel)

NOTE = """\
.. note::

   This tree's DAMON keeps the concepts described here (contexts and their
   kdamonds, operations sets, region based sampling, adaptive regions, age
   tracking, DAMOS) and is controlled through the :doc:`configfs interface
   <%s>`.  It implements the operations sets, DAMOS
   actions, quota, watermark and filter features that the configfs page
   documents, not all of those described below; the ``features`` file of
   the interface lists what a running kernel offers.  The sysfs and
   debugfs interfaces and the special-purpose modules of upstream DAMON
   are not part of it.

""" % CONFIGFS_DOC
text = replace_once(rel, text, '======\nDesign\n======\n\n',
                    '======\nDesign\n======\n\n' + NOTE)

# The paragraphs that point to parts of the sysfs interface's page: the
# first (how to start and stop DAMON) now points to the configfs page, the
# others (one per feature) go.
paras = text.split('\n\n')
pointers = [i for i, p in enumerate(paras)
            if p.lstrip('\n').startswith('To know how user-space can')
            and 'sysfs' in p]
if len(pointers) < 2:
    fail('%s: the "To know how user-space can" paragraphs are gone' % rel)
first = paras[pointers[0]]
if 'start/stop DAMON' not in first:
    fail('%s: unexpected first pointer paragraph:\n%s' % (rel, first))
paras[pointers[0]] = (
    'To know how user-space can do the configurations and start/stop DAMON,'
    ' refer to\nthe :doc:`DAMON configfs interface <%s>` documentation.'
    % CONFIGFS_DOC)
for i in reversed(pointers[1:]):
    del paras[i]
text = '\n\n'.join(paras)
text = re.sub(r'\n{4,}', '\n\n\n', text)

text = replace_once(rel, text, """\
User-space can get the monitoring results via DAMON sysfs interface and/or
tracepoints.  For more details, please refer to the documentations for
:ref:`DAMOS tried regions <sysfs_schemes_tried_regions>` and :ref:`tracepoint`,
respectively.
""", """\
User-space can get the monitoring results from the ``snapshot`` file of each
target in the :doc:`DAMON configfs interface <%s>`, and
from the ``damon:damon_aggregated`` tracepoint.
""" % CONFIGFS_DOC)

# The modules section: one interface now, and no special-purpose modules.
start = text.find('.. _damon_modules:\n')
if start < 0:
    fail('%s: no damon_modules section' % rel)
text = text[:start] + """\
.. _damon_modules:

Modules
=======

The user space interface of this tree's DAMON is one built-in component, the
:doc:`DAMON configfs interface <%s>`
(``CONFIG_DAMON_CONFIGFS``).  Every monitoring context, target, region, scheme
and filter is a directory under ``/sys/kernel/config/damon/``, made with
``mkdir`` and set up by writing the files in it; writing ``on`` to a context's
``state`` file starts its kdamond, and ``commit`` hands a changed setup to the
running kdamond.  Monitoring results are read from the ``snapshot`` file of
each target, or taken from the tracepoints.

The sysfs and debugfs interfaces and the special-purpose modules for proactive
reclamation (DAMON_RECLAIM) and LRU lists sorting (DAMON_LRU_SORT) are not part
of it: DAMOS schemes set up through the configfs interface do such work.
""" % CONFIGFS_DOC
write(rel, text)

# ---------------------------------------------------------------- api.rst

rel = 'Documentation/mm/damon/api.rst'
text = read(rel)
documented = sorted(f for f in os.listdir(path('mm/damon'))
                    if f.endswith('.c')
                    and re.search(r'^/\*\*$', read('mm/damon/' + f), re.M))
if not documented:
    fail('no kernel-doc comments in mm/damon/*.c')
text = replace_once(rel, text, '.. kernel-doc:: mm/damon/core.c\n',
                    ''.join('.. kernel-doc:: mm/damon/%s\n' % f
                            for f in documented))
write(rel, text)

# ---------------------------------------------------------------- links

# Nothing outside the translations may point to what is gone.
gone = re.compile(r'<(sysfs_[a-z_]+|debugfs_interface|damos_stats)>'
                  r'|:ref:`tracepoint`'
                  r'|/admin-guide/mm/damon/(start|usage|reclaim|lru_sort)\b')
for dirpath, dirnames, filenames in os.walk(path('Documentation')):
    dirnames[:] = [d for d in dirnames if d != 'translations']
    for name in filenames:
        if name.endswith('.rst'):
            full = os.path.join(dirpath, name)
            with open(full, encoding='utf-8', errors='replace') as f:
                for n, line in enumerate(f, 1):
                    if gone.search(line):
                        fail('%s:%d still points to a removed page: %s'
                             % (os.path.relpath(full, tree), n, line.strip()))
