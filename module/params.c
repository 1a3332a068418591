// SPDX-License-Identifier: GPL-2.0
/*
 * numacore: module parameters.  Every write is validated; a bad value is
 * refused with -EINVAL and a message, and the running value is kept.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "numacore.h"

int numacore_policy = NUMACORE_POLICY_NUMACORE;
unsigned int numacore_scan_period_min_ms = 250;
unsigned int numacore_scan_period_max_ms = 60000;
unsigned int numacore_scan_size_mb = 256;
unsigned int numacore_settle_count = 2;
bool numacore_feat_faults_up = true;
bool numacore_feat_faults_down;
bool numacore_feat_settle = true;
bool numacore_feat_first_fault = true;
bool numacore_feat_task_follows = true;

/* Cross-parameter checks wait for the end of insmod's argument list. */
static bool numacore_loaded;

/* Characters of a refused value quoted in the kernel message, at most. */
#define NUMACORE_PARAM_QUOTE_MAX	32

/* Length of a written value to quote: no newline, no screenful. */
static int numacore_arglen(const char *buf)
{
	return min_t(size_t, strcspn(buf, "\n"), NUMACORE_PARAM_QUOTE_MAX);
}

static const char * const numacore_policy_names[] = {
	[NUMACORE_POLICY_NUMACORE] = "numacore",
	[NUMACORE_POLICY_MORON] = "moron",
};

/**
 * struct numacore_uint_param - an unsigned parameter and its valid range
 * @val: the value
 * @min: smallest valid value
 * @max: largest valid value
 * @check: optional cross-check against other parameters, or NULL
 */
struct numacore_uint_param {
	unsigned int *val;
	unsigned int min;
	unsigned int max;
	int (*check)(const char *name, unsigned int val);
};

static int numacore_check_period_min(const char *name, unsigned int val)
{
	if (val <= READ_ONCE(numacore_scan_period_max_ms))
		return 0;
	pr_err("%s=%u refused: above scan_period_max_ms=%u\n", name, val,
	       numacore_scan_period_max_ms);
	return -EINVAL;
}

static int numacore_check_period_max(const char *name, unsigned int val)
{
	if (val >= READ_ONCE(numacore_scan_period_min_ms))
		return 0;
	pr_err("%s=%u refused: below scan_period_min_ms=%u\n", name, val,
	       numacore_scan_period_min_ms);
	return -EINVAL;
}

static int numacore_param_set_uint(const char *buf, const struct kernel_param *kp)
{
	const struct numacore_uint_param *p = kp->arg;
	unsigned int val;
	int ret;

	ret = kstrtouint(buf, 10, &val);
	if (ret || val < p->min || val > p->max) {
		pr_err("%s='%.*s' refused: not a decimal integer in [%u, %u]\n",
		       kp->name, numacore_arglen(buf), buf, p->min, p->max);
		return -EINVAL;
	}
	if (numacore_loaded && p->check) {
		ret = p->check(kp->name, val);
		if (ret)
			return ret;
	}
	WRITE_ONCE(*p->val, val);
	return 0;
}

static int numacore_param_get_uint(char *buf, const struct kernel_param *kp)
{
	const struct numacore_uint_param *p = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*p->val));
}

static const struct kernel_param_ops numacore_uint_ops = {
	.set = numacore_param_set_uint,
	.get = numacore_param_get_uint,
};

#define NUMACORE_UINT_PARAM(_name, _var, _min, _max, _check, _desc)	\
	static struct numacore_uint_param numacore_param_##_name = {	\
		.val = &(_var), .min = (_min), .max = (_max),		\
		.check = (_check),					\
	};								\
	module_param_cb(_name, &numacore_uint_ops,			\
			&numacore_param_##_name, 0644);			\
	MODULE_PARM_DESC(_name, _desc)

NUMACORE_UINT_PARAM(scan_period_min_ms, numacore_scan_period_min_ms,
		    10, 3600000, numacore_check_period_min,
		    "Shortest scan period in ms of task runtime, 10..3600000 and <= scan_period_max_ms (default 250)");
NUMACORE_UINT_PARAM(scan_period_max_ms, numacore_scan_period_max_ms,
		    10, 3600000, numacore_check_period_max,
		    "Longest scan period in ms of task runtime, 10..3600000 and >= scan_period_min_ms (default 60000)");
NUMACORE_UINT_PARAM(scan_size_mb, numacore_scan_size_mb, 1, 65536, NULL,
		    "Present memory marked PROT_NONE per scan, in MiB, 1..65536 (default 256)");
NUMACORE_UINT_PARAM(settle_count, numacore_settle_count, 1, 1000, NULL,
		    "Scan sequences without changing node before the private/shared class may change, 1..1000 (default 2)");

static int numacore_param_set_policy(const char *buf, const struct kernel_param *kp)
{
	int i = sysfs_match_string(numacore_policy_names, buf);

	if (i < 0) {
		pr_err("policy='%.*s' refused: use numacore or moron\n",
		       numacore_arglen(buf), buf);
		return -EINVAL;
	}
	WRITE_ONCE(numacore_policy, i);
	return 0;
}

static int numacore_param_get_policy(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  numacore_policy_names[READ_ONCE(numacore_policy)]);
}

static const struct kernel_param_ops numacore_policy_ops = {
	.set = numacore_param_set_policy,
	.get = numacore_param_get_policy,
};

module_param_cb(policy, &numacore_policy_ops, NULL, 0644);
MODULE_PARM_DESC(policy, "numacore (adaptive affinity, default) or moron (migrate every misplaced page at once)");

/* Exactly these words (kstrtobool() would take "10" or "yes" too). */
static const char * const numacore_bool_on[] = { "1", "y", "Y", "on" };
static const char * const numacore_bool_off[] = { "0", "n", "N", "off" };

static int numacore_param_set_feature(const char *buf, const struct kernel_param *kp)
{
	if (sysfs_match_string(numacore_bool_on, buf) >= 0) {
		WRITE_ONCE(*(bool *)kp->arg, true);
		return 0;
	}
	if (sysfs_match_string(numacore_bool_off, buf) >= 0) {
		WRITE_ONCE(*(bool *)kp->arg, false);
		return 0;
	}
	pr_err("%s='%.*s' refused: use 0/1, y/n or on/off\n", kp->name,
	       numacore_arglen(buf), buf);
	return -EINVAL;
}

static const struct kernel_param_ops numacore_feature_ops = {
	.set = numacore_param_set_feature,
	.get = param_get_bool,
};

module_param_cb(faults_up, &numacore_feature_ops, &numacore_feat_faults_up, 0644);
MODULE_PARM_DESC(faults_up, "Load balancer: always allow a move to a node with more of the task's faults (default on)");
module_param_cb(faults_down, &numacore_feature_ops, &numacore_feat_faults_down, 0644);
MODULE_PARM_DESC(faults_down, "Load balancer: allow a move to the next-best node when the task must leave its node (default off)");
module_param_cb(first_fault, &numacore_feature_ops, &numacore_feat_first_fault, 0644);
MODULE_PARM_DESC(first_fault, "numacore: migrate a page with no recorded last CPU on its first hinting fault, as stock 6.1 does; off = strict two-sample filter (default on)");
module_param_cb(task_follows, &numacore_feature_ops, &numacore_feat_task_follows, 0644);
MODULE_PARM_DESC(task_follows, "numacore: move a task to the node holding its memory (into spare capacity, or by swapping with a task that wants the task's node) instead of migrating the memory (default on)");
module_param_cb(settle, &numacore_feature_ops, &numacore_feat_settle, 0644);
MODULE_PARM_DESC(settle, "Wait settle_count scan sequences on one node before reclassifying a task (default on)");

/**
 * numacore_params_check() - validate the insmod arguments as a whole
 *
 * Return: 0, or -EINVAL (with a message) if they contradict each other.
 */
int numacore_params_check(void)
{
	if (numacore_scan_period_min_ms <= numacore_scan_period_max_ms)
		return 0;
	pr_err("scan_period_min_ms=%u is above scan_period_max_ms=%u\n",
	       numacore_scan_period_min_ms, numacore_scan_period_max_ms);
	return -EINVAL;
}

/* From now on every write is checked against the other parameters. */
void numacore_params_loaded(void)
{
	WRITE_ONCE(numacore_loaded, true);
}
