/*
 * qemuinsn: a QEMU TCG plugin that counts the guest instructions a
 * program executes under qemu-user, the arm64 counterpart of cachegrind's
 * "I refs" for the benchmark gate (bench/cmd/benchgate, issue 41).
 *
 *   qemu-aarch64 -plugin libqemuinsn.so,out=FILE prog args...
 *
 * writes "instructions: N" to FILE (stderr without out=) when the program
 * exits. Each translated block adds its instruction count to one counter
 * inline, in the generated code: no helper call per block. The add is not
 * atomic: two guest threads running at once can lose one block's count,
 * a few instructions in millions (RATIONALE.md, "The regression gate").
 *
 * Built by `make qemuinsn` against the plugin API of the installed QEMU
 * (Debian 12: qemu-user 7.2, API version 1), declared in qemuinsn-api.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemuinsn-api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMUINSN_API_VERSION;

static uint64_t executed;
static char *out_path;

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &executed, qemu_plugin_tb_n_insns(tb));
}

static void report(qemu_plugin_id_t id, void *userdata)
{
	(void)id;
	(void)userdata;
	FILE *f = stderr;
	if (out_path != NULL) {
		f = fopen(out_path, "w");
		if (f == NULL) {
			fprintf(stderr, "qemuinsn: %s: %s\n", out_path, strerror(errno));
			return;
		}
	}
	fprintf(f, "instructions: %llu\n", (unsigned long long)executed);
	if (f != stderr)
		fclose(f);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	if (info->version.cur < QEMUINSN_API_VERSION) {
		fprintf(stderr, "qemuinsn: this QEMU's plugin API is version %d, qemuinsn needs %d\n",
			info->version.cur, QEMUINSN_API_VERSION);
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		if (strncmp(argv[i], "out=", 4) == 0) {
			out_path = strdup(argv[i] + 4);
			continue;
		}
		fprintf(stderr, "qemuinsn: unknown argument %s (want out=FILE)\n", argv[i]);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, report, NULL);
	return 0;
}
