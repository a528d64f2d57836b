/* mqtt_peer.c: mosquitto for the integration tests, and their backend client. */
#include "mqtt_peer.h"

#include <arpa/inet.h>
#include <check.h>
#include <mosquitto.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "it_util.h"

const char *mqtt_broker_bin(void)
{
    static char found[512];
    const char *env = getenv("MOSQUITTO");
    if (env && *env) return access(env, X_OK) == 0 ? env : NULL;
    const char *path = getenv("PATH");
    char dirs[2048];
    snprintf(dirs, sizeof dirs, "%s:/usr/sbin:/usr/local/sbin", path ? path : "/usr/bin");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(found, sizeof found, "%s/mosquitto", d);
        if (access(found, X_OK) == 0) return found;
    }
    return NULL;
}

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    return ntohs(a.sin_port);
}

static bool accepts(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bool ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    close(fd);
    return ok;
}

void mqtt_broker_start(mqtt_broker_t *b, int port)
{
    const char *bin = mqtt_broker_bin();
    ck_assert_msg(bin != NULL, "no mosquitto broker installed");
    memset(b, 0, sizeof *b);
    b->port = port ? port : free_port();
    snprintf(b->conf, sizeof b->conf, "/tmp/mcpsim-mosquitto-XXXXXX");
    int fd = mkstemp(b->conf);
    ck_assert_int_ge(fd, 0);
    dprintf(fd,
            "listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n"
            "log_dest none\nmax_connections -1\n",
            b->port);
    close(fd);
    b->pid = fork();
    ck_assert_int_ge(b->pid, 0);
    if (b->pid == 0) {
        execl(bin, bin, "-c", b->conf, (char *)NULL);
        _exit(127);
    }
    double deadline = it_now() + IT_TIMEOUT;
    while (!accepts(b->port)) {
        int status;
        ck_assert_msg(waitpid(b->pid, &status, WNOHANG) == 0, "mosquitto exited at start");
        ck_assert_msg(it_now() < deadline, "mosquitto did not listen on %d in time", b->port);
        usleep(10000);
    }
}

void mqtt_broker_stop(mqtt_broker_t *b)
{
    if (b->pid <= 0) return;
    kill(b->pid, SIGTERM);
    waitpid(b->pid, NULL, 0);
    b->pid = 0;
    unlink(b->conf);
}

/* ---------------------------------------------------------------- the backend */

typedef struct msg {
    struct msg *next;
    char *topic, *text;
} msg_t;

struct mqtt_peer {
    struct mosquitto *mosq;
    msg_t *head, *tail;
    bool connected;
};

static void on_connect(struct mosquitto *m, void *ctx, int rc)
{
    (void)m;
    ((mqtt_peer_t *)ctx)->connected = rc == 0;
}

static void on_message(struct mosquitto *m, void *ctx, const struct mosquitto_message *mm)
{
    mqtt_peer_t *p = ctx;
    (void)m;
    msg_t *e = calloc(1, sizeof *e);
    e->topic = strdup(mm->topic);
    e->text = strndup(mm->payload, (size_t)mm->payloadlen);
    if (p->tail)
        p->tail->next = e;
    else
        p->head = e;
    p->tail = e;
}

mqtt_peer_t *mqtt_peer_open(int port, const char *filter)
{
    mosquitto_lib_init();
    mqtt_peer_t *p = calloc(1, sizeof *p);
    char id[64];
    snprintf(id, sizeof id, "test-backend-%d", (int)getpid());
    p->mosq = mosquitto_new(id, true, p);
    ck_assert_ptr_nonnull(p->mosq);
    mosquitto_connect_callback_set(p->mosq, on_connect);
    mosquitto_message_callback_set(p->mosq, on_message);
    ck_assert_int_eq(mosquitto_connect(p->mosq, "127.0.0.1", port, 60), MOSQ_ERR_SUCCESS);
    double deadline = it_now() + IT_TIMEOUT;
    while (!p->connected && it_now() < deadline) mosquitto_loop(p->mosq, 50, 1);
    ck_assert_msg(p->connected, "the test backend could not connect to the broker");
    int mid = 0;
    ck_assert_int_eq(mosquitto_subscribe(p->mosq, &mid, filter, 0), MOSQ_ERR_SUCCESS);
    /* the SUBACK: a few rounds of the loop (the broker answers at once on loopback) */
    for (int i = 0; i < 5; i++) mosquitto_loop(p->mosq, 20, 1);
    return p;
}

void mqtt_peer_send(mqtt_peer_t *p, const char *topic, const char *text)
{
    ck_assert_int_eq(mosquitto_publish(p->mosq, NULL, topic, (int)strlen(text), text, 0, false),
                     MOSQ_ERR_SUCCESS);
    mosquitto_loop(p->mosq, 0, 1);
}

json_t *mqtt_peer_recv(mqtt_peer_t *p, double timeout_s, char *topic, size_t cap)
{
    double deadline = it_now() + timeout_s;
    while (!p->head && it_now() < deadline) mosquitto_loop(p->mosq, 20, 1);
    msg_t *e = p->head;
    if (!e) return NULL;
    p->head = e->next;
    if (!p->head) p->tail = NULL;
    if (topic) snprintf(topic, cap, "%s", e->topic);
    json_error_t err;
    json_t *j = json_loads(e->text, 0, &err);
    ck_assert_msg(j != NULL, "not JSON on %s: %s", e->topic, e->text);
    free(e->topic);
    free(e->text);
    free(e);
    return j;
}

void mqtt_peer_close(mqtt_peer_t *p)
{
    while (p->head) {
        msg_t *e = p->head;
        p->head = e->next;
        free(e->topic);
        free(e->text);
        free(e);
    }
    mosquitto_disconnect(p->mosq);
    mosquitto_destroy(p->mosq);
    free(p);
}
