#!/usr/bin/env python3
"""Measures the order in which a real containerd 1.x `config dump` decodes plugin configs
(the plugin graph), as recorded in this directory:

    measure.py BINARY crates/model/data/containerd/defaults-RECORDED.toml > VERSION.txt

A main config with a type error in every plugin table of the defaults (its first
scalar or array key given a value of another type); the row of the error the binary
reports names the plugin; that plugin's error is taken out and the binary runs again,
until none is left. `plugin_order.rs` builds the same files and checks the model's
stderr against each recorded line.
"""
import os, re, subprocess, sys, tempfile, tomllib

binary, defaults = sys.argv[1], sys.argv[2]
plugins = tomllib.load(open(defaults, 'rb'))['plugins']
# Plugins whose default config prints no key (every field empty and omitted).
EXTRA = {'io.containerd.internal.v1.tracing': ('sampling_ratio', '"x"'),
         'io.containerd.tracing.processor.v1.otlp': ('endpoint', '1')}

def wrong(v):
    if isinstance(v, (bool, int, float)):
        return '"x"'
    if isinstance(v, (str, list)):
        return '1'
    return None

errors = {}
for uri, cfg in plugins.items():
    pick = next(((k, wrong(v)) for k, v in cfg.items() if wrong(v) is not None), EXTRA.get(uri))
    if pick is None:
        sys.exit(f'no field to break in {uri}')
    errors[uri] = pick

version = subprocess.run([binary, '--version'], capture_output=True, text=True).stdout.split()[2]
print(f'# containerd {version}: a type error in every plugin table (plugin_order.rs builds the file); each line is the plugin the')
print('# binary reported and its stderr, then that plugin\'s error is taken out and the binary runs again.')
with tempfile.TemporaryDirectory() as tmp:
    config = os.path.join(tmp, 'config.toml')
    while errors:
        lines = ['version = 2', f'root = "{tmp}/root"', f'state = "{tmp}/state"']
        rows = {}
        for uri, (key, value) in errors.items():
            lines += [f'[plugins."{uri}"]', f'  {key} = {value}']
            rows[len(lines)] = uri
        open(config, 'w').write('\n'.join(lines) + '\n')
        env = dict(os.environ, GOGC='off', GOMAXPROCS='1')
        p = subprocess.run([binary, '--config', config, 'config', 'dump'], capture_output=True, text=True, env=env)
        m = re.search(r'\((\d+), \d+\)', p.stderr)
        uri = m and rows.get(int(m.group(1)))
        if p.returncode == 0 or uri is None:
            sys.exit(f'exit {p.returncode}, stderr {p.stderr!r}, plugins left: {list(errors)}')
        print(f'{uri} | {p.stderr.strip()}')
        del errors[uri]
