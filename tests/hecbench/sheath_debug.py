#!/usr/bin/env python3
# sheath_debug.py - writes a debug copy of HeCBench's sheath (src/sheath-cuda/main.cu) that
# shows where ptxemu and the H200 part (issue 26): after every scatter it writes the density
# array the GPU summed (101 floats as hex, "S STEP SPECIES ..."), after every push and rewind up
# to step MAX a hash of each particle array and of its 16 sixteenths ("P STEP KERNEL ..."), and
# after every step max(phi) - phi[0] to 17 digits ("D STEP VALUE"), to the file argv[1]
# (argv[2] = MAX, 300 by default; SHEATH_STOP=1 stops after step MAX). With argv[3], a log the
# GPU wrote, each scatter's result is replaced by the GPU's ("forced-ndiff N": cells that
# differed), so every other kernel can be compared bit for bit. SHEATH_SUM=seq|exact|rand
# replaces each scatter's sums with the host's, in particle order, in double precision, or in a
# random interleaving of warps (SHEATH_W of them at a time, SHEATH_SEED) like the H200's.
# The kernels' PTX is the original's (nvcc -ptx of both, compared). Only lines are added; each
# insertion follows a line of the original named here. Usage:
#   sheath_debug.py HECBENCH/src/sheath-cuda/main.cu OUT.cu
#   nvcc -O3 -std=c++17 -arch=sm_90 OUT.cu -o dbg     (the Makefile's flags at ARCH=sm_90)
import sys
src = open(sys.argv[1]).read().split("\n")
INSERTS = [
    ('#include <cuda.h>', 'after', 0, [
        '#include <stdint.h>',
        '/* debug instrumentation */',
        'static FILE *dbg; static int dbg_ts = 0; static int dbg_max = 300;',
        'static float *forced = 0; /* [steps+1][2][101] GPU dens read from a log */',
        'static uint64_t fnv(const void *p, size_t n, uint64_t h) {',
        '  const unsigned char *c = (const unsigned char *)p;',
        '  for (size_t i = 0; i < n; i++) { h ^= c[i]; h *= 1099511628211ULL; }',
        '  return h; }',
        'static uint64_t hash_parts(const void *hp, int n) {',
        '  const unsigned char *b = (const unsigned char *)hp; uint64_t h = 1469598103934665603ULL;',
        '  for (int i = 0; i < n; i++) { uint64_t w[3] = {0, 0, 0}; memcpy(w, b + 24 * (size_t)i, 17);',
        '    for (int k = 0; k < 3; k++) { h ^= w[k]; h *= 1099511628211ULL; h ^= h >> 29; } }',
        '  return h; }',
        'static void dump_parts(const char *tag, const void *gpu, int n) {',
        '  if (dbg_ts > dbg_max) return;',
        '  static unsigned char *buf; if (!buf) buf = (unsigned char *)malloc(24 * (size_t)n);',
        '  cudaDeviceSynchronize();',
        '  cudaMemcpy(buf, gpu, 24 * (size_t)n, cudaMemcpyDeviceToHost);',
        '  fprintf(dbg, "P %d %s %016llx", dbg_ts, tag, (unsigned long long)hash_parts(buf, n));',
        '  for (int c = 0; c < 16; c++) fprintf(dbg, " %016llx", (unsigned long long)hash_parts(buf + 24 * (size_t)(c * (n / 16)), n / 16));',
        '  fprintf(dbg, "\\n"); }',
    ]),
    ('  int ts; // time step', 'after', 0, [
        '  dbg = fopen(argc > 1 ? argv[1] : "dbg.txt", "w");',
        '  if (argc > 2) dbg_max = atoi(argv[2]);',
        '  if (argc > 3) { /* forced dens from a GPU log */',
        '    FILE *g = fopen(argv[3], "r"); char line[4096];',
        '    forced = (float *)calloc((size_t)(NUM_TS + 1) * 2 * 101, 4);',
        "    while (fgets(line, sizeof line, g)) { int t, s, off; if (line[0] != 'S') continue;",
        '      if (sscanf(line, "S %d %d%n", &t, &s, &off) < 2 || t > NUM_TS) continue;',
        '      char *q = line + off; for (int i = 0; i < 101; i++) { unsigned u = strtoul(q, &q, 16); memcpy(&forced[((size_t)t * 2 + s) * 101 + i], &u, 4); } }',
        '    fclose(g); }',
    ]),
    ('  RewindSpecies(&ions, ions_part_gpu, ef_gpu);', 'after', 0, [
        '  dump_parts("rew_i", ions_part_gpu, NUM_IONS);',
    ]),
    ('  RewindSpecies(&electrons, electrons_part_gpu, ef_gpu);', 'after', 0, [
        '  dump_parts("rew_e", electrons_part_gpu, NUM_ELECTRONS);',
    ]),
    ('  for (ts = 1; ts <= NUM_TS; ts++)', 'after', 1, [
        '  {',
        '    dbg_ts = ts;',
    ]),
    ('    PushSpecies(&electrons, electrons_part_gpu, ef_gpu);', 'after', 0, [
        '    dump_parts("push_e", electrons_part_gpu, NUM_ELECTRONS);',
    ]),
    ('    PushSpecies(&ions, ions_part_gpu, ef_gpu);', 'after', 0, [
        '    dump_parts("push_i", ions_part_gpu, NUM_IONS);',
        '    {',
        '      double max_phi = abs(phi[0]);',
        '      for (int i = 0; i < domain.ni; i++) if (abs(phi[i]) > max_phi) max_phi = abs(phi[i]);',
        '      fprintf(dbg, "D %d %.17g\\n", ts, max_phi - phi[0]);',
        '      if (ts == dbg_max) { fflush(dbg); if (getenv("SHEATH_STOP")) exit(0); }',
        '    }',
    ]),
    ('  fclose(file_res);', 'after', 0, [
        '  fclose(dbg);',
    ]),
    ('/* move particles*/', 'before', 0, [
        '',
        '/* host re-summation of a scatter (SHEATH_SUM=seq|exact|rand, SHEATH_W=window, SHEATH_SEED) */',
        'static unsigned long long rng_s = 1;',
        'static unsigned rng() { rng_s ^= rng_s << 13; rng_s ^= rng_s >> 7; rng_s ^= rng_s << 17; return (unsigned)(rng_s >> 11); }',
        'struct Ent { int stream; float v; };',
        'static void host_sum(const Particle *hp, int n, float *den, int ni, const char *mode) {',
        '  static Ent *ent[128]; static int cnt[128], cap[128];',
        '  for (int c = 0; c < ni; c++) cnt[c] = 0;',
        '  for (int p = 0; p < n; p++) { if (!hp[p].alive) continue;',
        '    double lc = hp[p].x / DX; int i = (int)lc; float di = (float)(lc - i);',
        '    float v[2] = {1.f * (1 - di), 1.f * di};',
        '    for (int k = 0; k < 2; k++) { int c = i + k;',
        '      if (cnt[c] == cap[c]) { cap[c] = cap[c] ? 2 * cap[c] : 1024; ent[c] = (Ent *)realloc(ent[c], cap[c] * sizeof(Ent)); }',
        '      ent[c][cnt[c]].stream = (p / 32) * 2 + k; ent[c][cnt[c]].v = v[k]; cnt[c]++; } }',
        '  int W = getenv("SHEATH_W") ? atoi(getenv("SHEATH_W")) : 4;',
        '  for (int c = 0; c < ni; c++) {',
        '    Ent *e = ent[c]; int m = cnt[c];',
        '    if (!strcmp(mode, "seq")) { float s = 0; for (int j = 0; j < m; j++) s += e[j].v; den[c] = s; continue; }',
        '    if (!strcmp(mode, "exact")) { double s = 0; for (int j = 0; j < m; j++) s += e[j].v; den[c] = (float)s; continue; }',
        "    /* rand: streams (one warp's one instruction) are runs of e; a window of W of them, admitted",
        '       in a random order, gives one lane at a time from a random member */',
        '    int ns = 0; static int st[40000], en[40000], perm[40000];',
        '    for (int j = 0; j < m; j++) { if (j == 0 || e[j].stream != e[j - 1].stream) { st[ns] = j; ns++; } en[ns - 1] = j + 1; }',
        '    for (int j = 0; j < ns; j++) perm[j] = j;',
        '    for (int j = ns - 1; j > 0; j--) { int r = rng() % (j + 1), t = perm[j]; perm[j] = perm[r]; perm[r] = t; }',
        '    int act[64], na = 0, next = 0; float s = 0;',
        '    while (na < W && next < ns) act[na++] = perm[next++];',
        '    while (na) { int a = rng() % na, q = act[a]; s += e[st[q]].v; st[q]++;',
        '      if (st[q] == en[q]) { if (next < ns) act[a] = perm[next++]; else act[a] = act[--na]; } }',
        '    den[c] = s; } }',
        '',
    ]),
    ('  CUDA_ERROR(cudaMemcpy(den, den_gpu, sizeof(float) * domain.ni, cudaMemcpyDeviceToHost));', 'after', 0, [
        '  if (getenv("SHEATH_SUM")) {',
        '    static Particle *hp; if (!hp) hp = (Particle *)malloc(sizeof(Particle) * size);',
        '    if (!rng_s || dbg_ts == 0) rng_s = 0x9E3779B97F4A7C15ULL * (getenv("SHEATH_SEED") ? atoi(getenv("SHEATH_SEED")) : 1) + 1;',
        '    cudaMemcpy(hp, species_part_gpu, sizeof(Particle) * size, cudaMemcpyDeviceToHost);',
        '    float chk[128]; memcpy(chk, den, 4 * domain.ni);',
        '    host_sum(hp, size, den, domain.ni, "seq");',
        '    if (dbg_ts == 0 && memcmp(chk, den, 4 * domain.ni) && !getenv("SHEATH_NOCHK")) fprintf(dbg, "WARN host seq differs from device\\n");',
        '    host_sum(hp, size, den, domain.ni, getenv("SHEATH_SUM"));',
        '  }',
        '  {',
        '    int sp = species->charge > 0 ? 0 : 1, nd = 0;',
        '    fprintf(dbg, "S %d %d", dbg_ts, sp);',
        '    for (int i = 0; i < domain.ni; i++) { unsigned u; memcpy(&u, &den[i], 4); fprintf(dbg, " %08x", u); }',
        '    if (forced) { float *f = forced + ((size_t)dbg_ts * 2 + sp) * 101;',
        '      for (int i = 0; i < domain.ni; i++) if (memcmp(&den[i], &f[i], 4)) nd++;',
        '      memcpy(den, f, 4 * domain.ni); fprintf(dbg, " forced-ndiff %d", nd); }',
        '    fprintf(dbg, "\\n");',
        '  }',
    ]),
]
res = src[:]
for anchor, where, skip, lines in INSERTS:
    hits = [i for i, l in enumerate(res) if l == anchor]
    if len(hits) != 1:
        sys.exit("sheath_debug.py: %d lines %r in %s" % (len(hits), anchor, sys.argv[1]))
    at = hits[0] + (0 if where == 'before' else 1)
    res[at:at + skip] = lines
open(sys.argv[2], "w").write("\n".join(res))
