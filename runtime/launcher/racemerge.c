/* racemerge.c - `ptxemu race --merge FILE...`: the documents that the shards of one search
 * wrote (`ptxemu race --shard I/N --json FILE`, one a Slurm array task) read back into the
 * answer one run over all the seeds would give: the lowest seed any shard found, with its
 * replay command, and the same exit status (1 found, 0 nothing, 2 the search is incomplete).
 *
 * The shards must describe one search (same program, seeds, start, shard count, detector
 * setting) and cover it (every shard once). Every shard ran the reference seed; a reference
 * that gave different output or exit status on two shards is itself a finding, since the same
 * seed must give the same bytes on every machine. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "explore.h"
#include "json.h"

typedef struct Doc {
    const char *file;
    Json *j;
    unsigned long long shard;
} Doc;

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0, k;
    char tmp[65536];
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0) {
        if (n + k + 1 > cap) {
            cap = (n + k + 1) * 2;
            char *nb = realloc(buf, cap);
            if (!nb) { free(buf); fclose(f); errno = ENOMEM; return NULL; }
            buf = nb;
        }
        memcpy(buf + n, tmp, k);
        n += k;
    }
    fclose(f);
    if (!buf && !(buf = malloc(1))) return NULL;
    buf[n] = 0;
    if (strlen(buf) != n) { free(buf); errno = EINVAL; return NULL; }
    return buf;
}

static int num_ok(const Json *j)
{
    return j && j->kind == J_NUM && j->num >= 0 && j->num < 9007199254740992.0;
}

/* Loads one shard document; NULL (with a message) when it is not one. */
static Json *load(const char *path)
{
    char *text = read_file(path);
    if (!text) {
        fprintf(stderr, "ptxemu race --merge: %s: %s\n", path,
                errno == EINVAL ? "not a text file" : strerror(errno));
        return NULL;
    }
    char err[160];
    Json *j = json_parse(text, err, sizeof err);
    free(text);
    if (!j) {
        fprintf(stderr, "ptxemu race --merge: %s: not JSON (%s)\n", path, err);
        return NULL;
    }
    const Json *prog = json_get(j, "program");
    const char *result = json_str(json_get(j, "result"));
    int ok = json_num(json_get(j, "ptxemu_race"), 0) == 1 && prog && prog->kind == J_ARR &&
             prog->n > 0 && result && num_ok(json_get(j, "start")) && num_ok(json_get(j, "seeds")) &&
             num_ok(json_get(j, "shard")) && num_ok(json_get(j, "shards")) &&
             json_num(json_get(j, "shards"), 0) >= 1 &&
             json_num(json_get(j, "shard"), 0) < json_num(json_get(j, "shards"), 0) &&
             json_get(j, "racecheck") && json_get(j, "racecheck")->kind == J_BOOL;
    for (size_t i = 0; ok && i < prog->n; i++) ok = prog->items[i]->kind == J_STR;
    if (!ok) {
        fprintf(stderr, "ptxemu race --merge: %s: not a document of `ptxemu race --json`\n", path);
        json_free(j);
        return NULL;
    }
    return j;
}

static int same_program(const Json *a, const Json *b)
{
    const Json *pa = json_get(a, "program"), *pb = json_get(b, "program");
    if (pa->n != pb->n) return 0;
    for (size_t i = 0; i < pa->n; i++)
        if (strcmp(pa->items[i]->str, pb->items[i]->str)) return 0;
    return 1;
}

/* Why b does not belong to a's search, or NULL. */
static const char *mismatch(const Json *a, const Json *b)
{
    static const char *const keys[] = { "start", "seeds", "shards", "racecheck" };
    if (!same_program(a, b)) return "another program or other arguments";
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (json_num(json_get(a, keys[i]), -1) != json_num(json_get(b, keys[i]), -2)) return keys[i];
    return NULL;
}

static unsigned long long u(const Json *j, const char *key)
{
    return (unsigned long long)json_num(json_get(j, key), 0);
}

/* "shard I/N (host H)" */
static void describe(char *buf, size_t n, const Doc *d)
{
    const char *host = json_str(json_get(d->j, "host"));
    snprintf(buf, n, "shard %llu/%llu (host %s, %s)", d->shard, u(d->j, "shards"),
             host && *host ? host : "unknown", d->file);
}

static char **program_argv(const Json *j)
{
    const Json *p = json_get(j, "program");
    char **argv = calloc(p->n + 1, sizeof *argv);
    for (size_t i = 0; argv && i < p->n; i++) argv[i] = p->items[i]->str;
    return argv;
}

/* Prints the finding of shard d as the shard's run printed it, and the replay command (with
 * the folder it ran in, when that is not this one). */
static void print_doc_finding(const Doc *d, const Json *f)
{
    Finding fd;
    memset(&fd, 0, sizeof fd);
    const char *kind = json_str(json_get(f, "kind"));
    fd.kind = FIND_HAZARD;
    for (int k = FIND_OUTPUT; k <= FIND_HAZARD; k++)
        if (kind && !strcmp(kind, explore_kind_names[k])) fd.kind = k;
    fd.seed = (unsigned long long)json_num(json_get(f, "seed"), 0);
    fd.ref_seed = u(d->j, "start");
    fd.status = (int)json_num(json_get(f, "exit_status"), -1);
    fd.ref_status = (int)json_num(json_get(json_get(d->j, "reference"), "exit_status"), -1);
    fd.line = (long)json_num(json_get(f, "line"), 0);
    fd.ref_line = json_str(json_get(f, "reference_line"));
    fd.seed_line = json_str(json_get(f, "seed_line"));
    fd.report = json_str(json_get(f, "report"));
    explore_print_finding(stdout, &fd);
}

static void print_replay_in(const Doc *d, unsigned long long seed)
{
    char **argv = program_argv(d->j);
    const char *cwd = json_str(json_get(d->j, "cwd"));
    char here[4096];
    const char *prog0 = argv && argv[0] ? argv[0] : "";
    /* a relative program path names a file of the folder the shard ran in */
    if (cwd && *cwd && strchr(prog0, '/') && prog0[0] != '/' &&
        (!getcwd(here, sizeof here) || strcmp(here, cwd)))
        printf("(the shard ran in %s: cd there first)\n", cwd);
    if (argv) explore_print_replay(stdout, seed, json_num(json_get(d->j, "racecheck"), 1) != 0, argv);
    free(argv);
}

int race_merge_main(int nfiles, char **files)
{
    Doc *docs = calloc((size_t)nfiles, sizeof *docs);
    if (!docs) { perror("ptxemu race --merge"); return 2; }
    int n = 0, incomplete = 0;
    for (int i = 0; i < nfiles; i++) {
        Json *j = load(files[i]);
        if (!j) { incomplete = 1; continue; }
        const char *why = n ? mismatch(docs[0].j, j) : NULL;
        if (why) {
            fprintf(stderr, "ptxemu race --merge: %s belongs to another search than %s (%s differs)\n",
                    files[i], docs[0].file, why);
            json_free(j);
            incomplete = 1;
            continue;
        }
        docs[n].file = files[i];
        docs[n].j = j;
        docs[n].shard = u(j, "shard");
        n++;
    }
    unsigned long long nshards = n ? u(docs[0].j, "shards") : 0, tried = 0;
    /* coverage: every shard once, each finished */
    unsigned char *seen = n ? calloc(nshards, 1) : NULL;
    if (n && !seen) { perror("ptxemu race --merge"); incomplete = 1; }
    for (int i = 0; i < n && seen; i++) {
        const char *result = json_str(json_get(docs[i].j, "result"));
        if (seen[docs[i].shard]++) {
            fprintf(stderr, "ptxemu race --merge: shard %llu/%llu appears twice (%s)\n", docs[i].shard,
                    nshards, docs[i].file);
        } else if (!strcmp(result, "error")) {
            const char *e = json_str(json_get(docs[i].j, "error"));
            fprintf(stderr, "ptxemu race --merge: shard %llu/%llu did not finish: %s (%s)\n",
                    docs[i].shard, nshards, e ? e : "error", docs[i].file);
            incomplete = 1;
        } else {
            tried += u(docs[i].j, "tried") - 1;   /* the reference seed is counted once below */
        }
    }
    for (unsigned long long s = 0; seen && s < nshards; s++)
        if (!seen[s]) {
            fprintf(stderr, "ptxemu race --merge: no file of shard %llu/%llu\n", s, nshards);
            incomplete = 1;
        }
    /* the lowest seed found; a reference seed that differs between shards is found at once */
    const Doc *best = NULL, *ref_a = NULL, *ref_b = NULL;
    const Json *best_f = NULL;
    for (int i = 0; i < n; i++) {
        const Json *r = json_get(docs[i].j, "reference"), *r0 = json_get(docs[0].j, "reference");
        const char *h = json_str(json_get(r, "output_fnv1a64")), *h0 = json_str(json_get(r0, "output_fnv1a64"));
        if (!ref_a && (!h || !h0 || strcmp(h, h0) ||
                       json_num(json_get(r, "exit_status"), -1) != json_num(json_get(r0, "exit_status"), -1))) {
            ref_a = &docs[i];
            ref_b = &docs[0];
        }
        const Json *f = json_get(docs[i].j, "finding");
        if (!f || f->kind != J_OBJ || !num_ok(json_get(f, "seed"))) continue;
        double seed = json_num(json_get(f, "seed"), 0);
        if (!best_f || seed < json_num(json_get(best_f, "seed"), 0) ||
            (seed == json_num(json_get(best_f, "seed"), 0) && docs[i].shard < best->shard)) {
            best = &docs[i];
            best_f = f;
        }
    }
    int rc;
    char where[512], ref_where[512];
    if (ref_a) {
        describe(where, sizeof where, ref_a);
        describe(ref_where, sizeof ref_where, ref_b);
        Finding fd = { .kind = FIND_REFERENCE, .seed = u(ref_a->j, "start"), .where = where,
                       .ref_where = ref_where };
        explore_print_finding(stdout, &fd);
        print_replay_in(ref_a, fd.seed);
        rc = 1;
    } else if (best) {
        print_doc_finding(best, best_f);
        describe(where, sizeof where, best);
        printf("found by %s\n", where);
        print_replay_in(best, (unsigned long long)json_num(json_get(best_f, "seed"), 0));
        rc = 1;
    } else if (incomplete || !n) {
        fprintf(stderr, "ptxemu race --merge: nothing found in the shards read, but the search is "
                        "incomplete\n");
        rc = 2;
    } else {
        printf("ptxemu race: %llu seeds over %llu shards, all outputs identical to seed %llu, no "
               "hazard reported%s\n", tried + 1, nshards, u(docs[0].j, "start"),
               json_num(json_get(docs[0].j, "racecheck"), 1) ? " (race detector on)" : "");
        rc = 0;
    }
    if (rc == 1 && incomplete)
        fprintf(stderr, "ptxemu race --merge: (some shards are missing or unfinished: a lower seed "
                        "may also fail)\n");
    for (int i = 0; i < n; i++) json_free(docs[i].j);
    free(docs);
    free(seen);
    return rc;
}
