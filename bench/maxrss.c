/* maxrss.c - runs a command and prints its peak resident set size on stderr
 * ("maxrss_kb=N"), then its CPU seconds, context switches (what tells busy workers from
 * waiting ones when a run scales badly) and minor page faults (first touches of fresh
 * memory); bench/run.sh uses it where /usr/bin/time is
 * not installed. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: maxrss COMMAND [ARG]...\n");
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("maxrss: fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        perror("maxrss: exec");
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("maxrss: wait4");
        return 2;
    }
    fprintf(stderr, "maxrss_kb=%ld user_s=%.3f sys_s=%.3f vcsw=%ld ivcsw=%ld minflt=%ld\n", ru.ru_maxrss,
            ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6, ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6,
            ru.ru_nvcsw, ru.ru_nivcsw, ru.ru_minflt);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
