#!/usr/bin/env python3
"""Records what real containerd binaries make of the plugin config fields whose Go type
is a duration (a type with `UnmarshalText`, or `time.Duration`), the tracing plugins'
fields (absent from their default dumps), a table or a boolean or float where a
plugin wants a plain value, and numbers too large for their type, for
`plugin_fields.rs`:

    measure.py > crates/model/tests/plugin_fields/recorded.txt

Each case is a main config (`version = 2`, a private root and state, then one plugin
table); the binary runs `config dump`. Recorded: the exit status, stderr without the
2.x migration warning (the model's own tests check that line elsewhere), and on
success the plugin's table as the dump printed it. Binaries: Debian's 1.6.20 on PATH
and the oracle's builds in ~/.cache/gpulab/containerd/<version>/.
"""
import os, re, subprocess, tempfile

HOME = os.path.expanduser('~/.cache/gpulab/containerd')
BINS = {'1.6.20': '/usr/bin/containerd'}
for v in ['1.6.38', '1.7.34', '2.0.11', '2.1.9', '2.2.7', '2.3.4', '2.4.2']:
    BINS[v] = f'{HOME}/{v}/containerd'

V1 = ['1.6.20', '1.6.38', '1.7.34']
V2 = ['2.0.11', '2.1.9', '2.2.7', '2.3.4', '2.4.2']
DURATION_VALUES = ['1', '-5', '0', '1.5', 'inf', 'true', '"x"', '""', '"1.5h"', '".5s"', '"1us"', '"5 s"',
                   '"9223372036854775808ns"', '[1]', '1979-05-27T07:32:00Z', '1979-05-27T07:32:00.5+01:00',
                   '07:32:00.5', '{}', '{ duration = "5s" }', '{ Duration = 7 }', '{ x = 1 }']
CASES = []
for v in V1:
    fields = [('io.containerd.internal.v1.restart', 'interval'), ('io.containerd.gc.v1.scheduler', 'schedule_delay')]
    if v == '1.7.34':
        fields.append(('io.containerd.nri.v1.nri', 'plugin_request_timeout'))
    for plugin, key in fields:
        for value in DURATION_VALUES:
            CASES.append((v, plugin, [f'{key} = {value}']))
for v in V2:
    for plugin, key in [('io.containerd.monitor.container.v1.restart', 'interval'),
                        ('io.containerd.gc.v1.scheduler', 'startup_delay'),
                        ('io.containerd.nri.v1.nri', 'plugin_registration_timeout'),
                        ('io.containerd.image-verifier.v1.bindir', 'per_verifier_timeout')]:
        for value in ['1', '1.5', 'true', '"x"', '"1.5h"', '[1]', '[]', '1979-05-27T07:32:00Z', '07:32:00', '{}', '{ a = 1 }']:
            CASES.append((v, plugin, [f'{key} = {value}']))
TRACING = [('io.containerd.tracing.processor.v1.otlp', ['endpoint = 1']),
           ('io.containerd.tracing.processor.v1.otlp', ['endpoint = "e"', 'insecure = false']),
           ('io.containerd.tracing.processor.v1.otlp', ['insecure = true', 'protocol = "grpc"', 'endpoint = "e"']),
           ('io.containerd.tracing.processor.v1.otlp', ['insecure = "x"']),
           ('io.containerd.tracing.processor.v1.otlp', ['protocol = {}']),
           ('io.containerd.internal.v1.tracing', ['sampling_ratio = 1']),
           ('io.containerd.internal.v1.tracing', ['sampling_ratio = "x"']),
           ('io.containerd.internal.v1.tracing', ['sampling_ratio = 0.0', 'service_name = ""']),
           ('io.containerd.internal.v1.tracing', ['sampling_ratio = 0.25', 'service_name = "lab"']),
           ('io.containerd.internal.v1.tracing', ['service_name = true'])]
for v in ['1.6.38', '1.7.34', '2.0.11', '2.1.9', '2.2.7', '2.3.4']:
    for plugin, lines in TRACING:
        CASES.append((v, plugin, lines))
for v in V1:
    for value in ['{}', '{ a = 1, b = "x" }', '{ a = { c = [1, 2] } }', '07:32:00', '1979-05-27T07:32:00.1200']:
        CASES.append((v, 'io.containerd.internal.v1.opt', [f'path = {value}']))
for v in V2:
    for value in ['true', '0.5', '{}', '{ a = 1 }']:
        CASES.append((v, 'io.containerd.internal.v1.opt', [f'path = {value}']))
        CASES.append((v, 'io.containerd.cri.v1.runtime', [f'cdi_spec_dirs = {value}']))
        CASES.append((v, 'io.containerd.gc.v1.scheduler', [f'deletion_threshold = {value}']))

for v in V2:
    for value in ['true', '0.5', '{}', '{ a = 1 }']:
        CASES.append((v, 'io.containerd.cri.v1.images', [f'pinned_images.sandbox = {value}', 'pinned_images.zzz = {}']))
        CASES.append((v, 'io.containerd.cri.v1.images', [f'registry.headers.X = {value}']))

# numbers out of range, and a signed leading zero, under a known field and an unknown key
# (not the forms 1.x takes that the lab parser refuses: `00`, `-01`, and on 1.7 a
# positive integer up to 2^64 - 1, which wraps round)
NUMBERS = ['-9223372036854775809', '99_999_999_999_999_999_999', '0xffffffffffffffffff', '0o7777777777777777777777',
           '1e99999', '-1_0e4_00', '1e-400']
for v in V1 + V2:
    for value in NUMBERS + ([] if v in V1 else ['+00', '-01', '00', '9223372036854775808']):
        for key in ['deletion_threshold', 'unknown_key']:
            CASES.append((v, 'io.containerd.gc.v1.scheduler', [f'{key} = {value}']))

# an array as a plugin's whole config (`[plugins] "io.containerd.gc.v1.scheduler" = [...]`)
for v in V1 + V2:
    for value in ['[]', '[1]', '["a"]', '["a b"]', '[true]', '[1.5]', '[-0.25]', '[1e6]', '[123456.5]', '[1234567.5]', '[1979-05-27]', '[[1]]', '[["a"]]',
                  '[1, 2]', '["a", 1]', '[[1, 2]]', '[{ a = 1 }]', '[{}]', '[1979-05-27T07:32:00Z]', '[07:32:00]']:
        # Not modelled on 1.x (go-toml v1): a local date in an array (`missing comma`, a
        # lexer error), an array of tables into a struct (`Can't convert ... to trees`).
        if v in V1 and value in ('[1979-05-27]', '[{ a = 1 }]', '[{}]'):
            continue
        CASES.append((v, None, [f'"io.containerd.gc.v1.scheduler" = {value}']))

env = dict(os.environ, GOGC='off', GOMAXPROCS='1')
print('# What the real binaries printed (measure.py): a case per `=== VERSION`, its plugin table, `--- exit N`,')
print('# then stderr (the 2.x migration warning left out) or, on success, the plugin table as dumped.')
with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, 'etc/containerd'))
    config = os.path.join(tmp, 'etc/containerd/config.toml')
    for v, plugin, lines in CASES:
        quote = '"'
        if plugin is None:
            body, plugin = ['[plugins]'] + [f'  {l}' for l in lines], 'io.containerd.gc.v1.scheduler'
        else:
            body = [f'[plugins.{quote}{plugin}{quote}]'] + [f'  {l}' for l in lines]
        text = '\n'.join(['version = 2', f'root = "{tmp}/root"', f'state = "{tmp}/state"'] + body) + '\n'
        open(config, 'w').write(text)
        p = subprocess.run([BINS[v], '--config', config, 'config', 'dump'], capture_output=True, text=True, env=env, cwd='/')
        print(f'=== {v}')
        print('\n'.join(body))
        print(f'--- exit {p.returncode}')
        if p.returncode != 0:
            err = [l for l in p.stderr.rstrip('\n').split('\n') if 'Configuration migrated' not in l]
            print(re.sub(r'time="[^"]*" ', '', '\n'.join(err).replace(tmp, '')))
        else:
            out = p.stdout.split('\n')
            # the plugin's table, or the sub-table its first key is in (`pinned_images.sandbox`)
            first = lines[0].split(' = ')[0]
            sub = first.rsplit('.', 1)[0] if '.' in first and not first.startswith('"') else ''
            start = next(i for i, l in enumerate(out) if l.strip().startswith('[plugins.') and plugin in l and l.strip().endswith((f'.{sub}]' if sub else f"{plugin}']", f'{plugin}"]')))
            block = [out[start]]
            for l in out[start + 1:]:
                if l.strip() == '' or l.strip().startswith('['):
                    break
                block.append(l)
            print('\n'.join(block))
            for l in p.stderr.rstrip('\n').split('\n'):
                if l and 'Configuration migrated' not in l:
                    print('stderr: ' + re.sub(r'time="[^"]*" ', '', l.replace(tmp, '')))
