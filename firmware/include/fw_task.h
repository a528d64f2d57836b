/* fw_task.h: MCP tasks (the io.modelcontextprotocol/tasks extension of 2026-07-28): a tool that
   takes device time runs as a task in fixed slots of the device, stepped in fw_device_poll. */
#ifndef FW_TASK_H
#define FW_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_config.h"
#include "fw_json.h"
#include "fw_tool.h"

struct fw_device;

/* What a step reports. */
typedef enum fw_task_rc {
    FW_TASK_WORKING = 0, /* not done: run again after wake_ms of device time */
    FW_TASK_DONE,        /* completed; text is the result's text block */
    FW_TASK_TOOL_ERROR,  /* completed with isError: text says what failed */
    FW_TASK_FAILED,      /* a protocol-level failure: status failed, error {code, message: text} */
    FW_TASK_INPUT        /* needs the client: input_want names the requests, text their message */
} fw_task_rc_t;

/*
 * A step of a task tool: the core calls it when the task is created, then whenever wake_ms of
 * device time has passed (in fw_device_poll, or when a tasks request comes earlier), and
 * after the client answered every input request. state is the step's own, kept in the slot
 * between steps (0 at first). A step does a bounded amount of work and returns.
 */
typedef struct fw_task_step {
    struct fw_device *dev;
    const fw_json_doc_t *args_doc; /* the call's arguments, kept in the slot */
    int32_t args;                  /* their object token, or -1 */
    uint32_t elapsed_ms;           /* device time since the task was created */
    uint32_t state;                /* in/out: the step's own progress */
    uint32_t wake_ms;              /* out (FW_TASK_WORKING): run again after this long */
    uint8_t input_want;            /* out (FW_TASK_INPUT): bit i asks elicitation "input-i" */
    uint8_t input_accepted;        /* in: bit i: the client accepted request i */
    char *text;                    /* out: result text / error message / elicitation message */
    size_t text_cap;
    uint32_t progress, total;      /* out (FW_TASK_WORKING, optional): progress of total units
                                      (total 0: unknown), sent as MCP 2025-11-25
                                      notifications/progress when the call had a progressToken */
} fw_task_step_t;

typedef fw_task_rc_t (*fw_task_step_fn)(fw_task_step_t *t);

/* A tool that runs as a task: tool->flags carries FW_TOOL_TASK_OPTIONAL (a client that did not
   negotiate the extension gets the tool's handler run at once) or FW_TOOL_TASK_REQUIRED (such a
   client gets -32021). Registered with fw_device_add_task_tool. */
typedef struct fw_task_tool {
    const fw_tool_t *tool;
    fw_task_step_fn step;
    bool handler_first; /* the tool's handler runs first (e.g. to gather input through an
                           input-required result) and starts the task with fw_call_start_task */
} fw_task_tool_t;

/* From the handler of a handler_first task tool, in a request of a client that negotiated the
   extension: answers the request with a CreateTaskResult of a new task of the tool's step,
   whose arguments are args_json (an object's text, or NULL). Return its value. */
fw_err_t fw_call_start_task(fw_call_t *call, const char *args_json);

/* Task statuses. */
typedef enum fw_task_status {
    FW_TASK_S_WORKING = 1,
    FW_TASK_S_INPUT_REQUIRED,
    FW_TASK_S_COMPLETED,
    FW_TASK_S_FAILED,
    FW_TASK_S_CANCELLED
} fw_task_status_t;

/* Which MCP tasks a slot serves: the 2026-07-28 extension, or MCP 2025-11-25's tasks
   (params.task on tools/call, tasks/get|list|result|cancel). */
#define FW_TASK_SPEC_EXTENSION 0u
#define FW_TASK_SPEC_2025_11_25 1u

/* One slot (fw_device_t.tasks); id 0: free. */
typedef struct fw_task {
    uint32_t id;
    uint8_t status;  /* fw_task_status_t */
    uint8_t rc;      /* the last fw_task_rc_t */
    uint8_t pending; /* input requests not yet answered (bits) */
    uint8_t accepted;
#if FW_WITH_TASKS_2025
    uint8_t spec; /* FW_TASK_SPEC_*: which MCP tasks created it (how it is written) */
#endif
    fw_task_step_fn step;
    uint64_t created_ms, updated_ms, wake_at_ms;
    uint32_t state;
    int32_t err; /* FW_TASK_FAILED: the fw_err_t */
#if FW_WITH_TASKS_2025
    uint32_t ttl_ms; /* kept this long after its creation */
    /* MCP 2025-11-25: the session that created it (its progress goes there), and a held
       tasks/result: the session it came in and its raw JSON id, answered on that session's
       fw_device_drain once the task is terminal (or expired) */
    const struct fw_session *owner;
    const struct fw_session *waiter; /* NULL: no tasks/result waits */
    uint32_t progress, total;        /* the last working step's report */
    bool progress_seen;              /* a step reported progress */
    bool progress_due;               /* reported and not yet sent */
    bool expired;                    /* ttl passed while a tasks/result waited: answered, freed */
    uint8_t wait_id_len;
    uint8_t token_len; /* raw JSON progressToken of the creating tools/call; 0: none */
    char wait_id[FW_MCP_ID_MAX];
    char token[FW_MCP_ID_MAX];
#endif
    char args[FW_TASK_ARGS_MAX];
    char text[FW_TASK_TEXT_MAX];
} fw_task_t;

#endif
