/* json.h - a small JSON reader for the launcher's own documents (`ptxemu race --merge` reads
 * the shard files `ptxemu race --json` wrote). Whole documents in memory; numbers kept as
 * doubles (seeds and counts stay exact below 2^53). Errors name the byte offset. */
#ifndef PTXEMU_JSON_H
#define PTXEMU_JSON_H
#include <stddef.h>

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } JsonKind;

typedef struct Json {
    JsonKind kind;
    double num;            /* J_NUM; J_BOOL: 0 or 1 */
    char *str;             /* J_STR (NUL-terminated; an embedded \u0000 ends it) */
    struct Json **items;   /* J_ARR: the elements; J_OBJ: the values */
    char **keys;           /* J_OBJ: the keys */
    size_t n;
} Json;

/* Parses text; NULL on error with a message in err ("offset N: ..."). */
Json *json_parse(const char *text, char *err, size_t errlen);
void json_free(Json *j);
/* The value of key in an object, or NULL (also when j is not an object). */
const Json *json_get(const Json *j, const char *key);
/* The string of a J_STR, else NULL. */
const char *json_str(const Json *j);
/* The number of a J_NUM (a J_BOOL's 0 or 1), else dflt. */
double json_num(const Json *j, double dflt);
#endif
