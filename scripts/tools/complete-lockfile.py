#!/usr/bin/env python3
"""
Completes package-lock.json with the optional, platform-specific packages that the registry mirror of our
build machines does not serve (it answers 404 for other platforms' binaries, e.g. @swc/core-darwin-arm64),
so that `npm ci` accepts the lockfile. Each added entry carries only the version, the platform (os, cpu,
libc) and `optional`: npm skips it on a platform it does not match, which is every machine that would
need it fetched from this mirror. Run after `npm install` changes the lockfile: python3 scripts/tools/complete-lockfile.py
"""
import json, re, sys

OS = {'darwin': 'darwin', 'linux': 'linux', 'win32': 'win32', 'android': 'android', 'freebsd': 'freebsd', 'openharmony': 'openharmony'}
CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64']

def platform_of(name):
    base = name.split('/')[-1]
    parts = base.split('-')
    os_ = next((OS[p] for p in parts if p in OS), None)
    cpu = next((p for p in parts if p in CPU), None)
    if cpu is None and 'arm' in base:
        cpu = 'arm'
    libc = 'musl' if 'musl' in base else ('glibc' if 'gnu' in base and os_ == 'linux' else None)
    return os_, cpu, libc

path = sys.argv[1] if len(sys.argv) > 1 else 'package-lock.json'
lock = json.load(open(path))
pkgs = lock['packages']
added = []
for key, meta in list(pkgs.items()):
    for dep, spec in (meta.get('optionalDependencies') or {}).items():
        target = f'node_modules/{dep}'
        if target in pkgs or not re.match(r'^\d+\.\d+\.\d+', spec):
            continue
        os_, cpu, libc = platform_of(dep)
        if not os_ or not cpu:
            continue  # not a platform binary: leave it to npm
        entry = {'version': spec, 'cpu': [cpu], 'optional': True, 'os': [os_]}
        if libc:
            entry['libc'] = [libc]
        if meta.get('dev'):
            entry['dev'] = True
        pkgs[target] = entry
        added.append(dep)
lock['packages'] = dict(sorted(pkgs.items(), key=lambda kv: (kv[0] != '', kv[0])))
json.dump(lock, open(path, 'w'), indent=2)
open(path, 'a').write('\n')
print(f'complete-lockfile: added {len(added)} platform entries')
