/* stop.c - see stop.h.
 *
 * The handler only writes the signal's number to a pipe (what a handler may do); a thread
 * waiting on the pipe does the rest in ordinary thread context: it sets emu_stop_signal,
 * which the schedulers read beside the time limit (sched.c), waits for the launches in
 * flight to end (their reports are written as they finish), writes the "stopped" record,
 * and raises the signal again with its default action. A second signal while that happens
 * is ignored (a terminal's ^C reaches both ptxemu and the program); one after 5 s of waiting
 * ends the process at once. A thread that comes back from a launch while the run is being
 * stopped waits there for the end, so the program's own code does not go on. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "stop.h"
#include "report.h"

volatile int emu_stop_signal;
static int pipe_fd[2] = { -1, -1 };
static volatile sig_atomic_t stopping;
static volatile sig_atomic_t give_up;   /* the stop waited too long: a signal ends it */
static int in_flight;
static pthread_mutex_t flight_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t flight_cond = PTHREAD_COND_INITIALIZER;

static const int stop_signals[] = { SIGTERM, SIGINT, SIGALRM };

static const char *sig_name(int sig)
{
    return sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : sig == SIGALRM ? "SIGALRM" : "signal";
}

void stop_launch_enter(void)
{
    pthread_mutex_lock(&flight_lock);
    in_flight++;
    pthread_mutex_unlock(&flight_lock);
}

void stop_launch_leave(void)
{
    pthread_mutex_lock(&flight_lock);
    if (in_flight > 0) in_flight--;
    pthread_cond_broadcast(&flight_cond);
    pthread_mutex_unlock(&flight_lock);
    /* the run is being stopped: the program's own code does not go on after its launch (the
     * stopping thread ends the process as soon as the report is complete) */
    while (emu_stop_signal) pause();
}

static void on_signal(int sig)
{
    if (stopping) {
        if (give_up) { signal(sig, SIG_DFL); raise(sig); }
        return;
    }
    stopping = 1;
    unsigned char b = (unsigned char)sig;
    int saved = errno;
    if (write(pipe_fd[1], &b, 1) != 1) { signal(sig, SIG_DFL); raise(sig); }
    errno = saved;
}

static void *stopper(void *arg)
{
    (void)arg;
    unsigned char b;
    while (read(pipe_fd[0], &b, 1) != 1)
        if (errno != EINTR) return NULL;
    int sig = b;
    emu_stop_signal = sig;
    /* the launches in flight end at their next round; their reports follow */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 5;
    pthread_mutex_lock(&flight_lock);
    while (in_flight > 0 && pthread_cond_timedwait(&flight_cond, &flight_lock, &until) != ETIMEDOUT) {}
    int left = in_flight;
    pthread_mutex_unlock(&flight_lock);
    FILE *js = report_open();
    if (js) {
        fprintf(js, "{\"kind\":\"stopped\",\"signal\":%d,\"name\":\"%s\",\"message\":", sig, sig_name(sig));
        char msg[200];
        snprintf(msg, sizeof msg, "the run was stopped from outside (%s)%s", sig_name(sig),
                 left ? "; a kernel still running did not end within 5 s and its findings are missing" : "");
        report_str(js, msg);
        fprintf(js, "}\n");
        report_close(js);
    }
    fprintf(stderr, "ptxemu: stopped by %s; the report (PTXEMU_REPORT) is complete\n", sig_name(sig));
    fflush(NULL);
    give_up = 1;
    signal(sig, SIG_DFL);
    kill(getpid(), sig);   /* this thread blocks every signal: another one takes it */
    return NULL;
}

void stop_init(void)
{
    const char *path = getenv("PTXEMU_REPORT");
    if (!path || !*path || pipe_fd[0] >= 0) return;
    if (pipe(pipe_fd) < 0) return;
    fcntl(pipe_fd[0], F_SETFD, FD_CLOEXEC);
    fcntl(pipe_fd[1], F_SETFD, FD_CLOEXEC);
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    /* the thread must not take the signals itself: it starts with them blocked */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&t, &a, stopper, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&a);
    if (rc) return;
    for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++) {
        struct sigaction cur;
        if (sigaction(stop_signals[i], NULL, &cur) < 0 || cur.sa_handler != SIG_DFL) continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(stop_signals[i], &sa, NULL);
    }
}
