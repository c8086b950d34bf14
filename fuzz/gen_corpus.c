/*
 * gen_corpus.c - writes the seed corpora of the protocol's fuzz targets:
 * small, valid, random encodings of every message type, into
 * DIR/fuzz_proto_<type>/ (one folder per per-type target) and a few of
 * each type into DIR/fuzz_proto/ (the generic target).
 *
 * Usage: gen_corpus DIR [SEED]. Exit 0 on success, 1 if a file could not
 * be written, 2 on bad usage.
 */
#include "sk_proto.h"
#include "skylark.h"
#include "test_proto_gen.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PER_TYPE    8    /* seeds per per-type target */
#define PER_GENERIC 2    /* seeds of each type for the generic target */
#define MAX_SEED    4096 /* larger seeds slow the fuzzer down */

/* Formats a path into out; fails (exit 1) when it does not fit. */
static void path_of(char *out, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void path_of(char *out, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, size, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size) {
        fprintf(stderr, "gen_corpus: path too long\n");
        exit(1);
    }
}

static int make_dir(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "gen_corpus: mkdir %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int write_file(const char *path, const sk_buf *b)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(b->b_data, 1, b->b_len, f) != b->b_len ||
        fclose(f) != 0) {
        fprintf(stderr, "gen_corpus: write %s failed\n", path);
        return -1;
    }
    return 0;
}

/* Encodes a random small message of type t into b. */
static void small_message(pg *g, sk_msg_type t, sk_buf *b)
{
    do {
        sk_msg m;
        pg_fill(g, t, &m);
        if (sk_msg_encode(b, &m) != 0) {
            fprintf(stderr, "gen_corpus: a generated %s does not encode\n",
                    sk_msg_type_name(t));
            exit(1);
        }
    } while (b->b_len > MAX_SEED);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || strcmp(argv[1], "--help") == 0) {
        fprintf(stderr, "usage: gen_corpus DIR [SEED]\n");
        return 2;
    }
    uint64_t seed = argc == 3 ? strtoull(argv[2], NULL, 10) : 1;
    const char *dir = argv[1];
    char path[4096], generic[4096];
    pg g;
    sk_buf b = SK_BUF_INIT;
    pg_init(&g, seed);
    g.pg_max_list = 3;
    path_of(generic, sizeof generic, "%s/fuzz_proto", dir);
    if (make_dir(dir) != 0 || make_dir(generic) != 0)
        return 1;
    for (int t = 1; t < SK_MSG_TYPE_END; t++) {
        char name[64];
        const char *upper = sk_msg_type_name(t);
        size_t i;
        for (i = 0; upper[i] != '\0' && i < sizeof name - 1; i++)
            name[i] = (char)tolower((unsigned char)upper[i]);
        name[i] = '\0';
        char tdir[4096];
        path_of(tdir, sizeof tdir, "%s/fuzz_proto_%s", dir, name);
        if (make_dir(tdir) != 0)
            return 1;
        for (int k = 0; k < PER_TYPE + PER_GENERIC; k++) {
            small_message(&g, (sk_msg_type)t, &b);
            if (k < PER_TYPE)
                path_of(path, sizeof path, "%s/seed-%d", tdir, k);
            else
                path_of(path, sizeof path, "%s/%s-%d", generic, name, k);
            if (write_file(path, &b) != 0)
                return 1;
        }
        pg_free(&g);
    }
    sk_buf_free(&b);
    return 0;
}
