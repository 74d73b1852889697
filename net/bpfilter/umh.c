// SPDX-License-Identifier: GPL-2.0
/*
 * The embedded usermode helper: where it runs from, how it is started with
 * exported symbols only, and the request channel to it.
 *
 * The channel is one anon-inode file owned by this module. The helper has it
 * as fd 0 (read: the next request, EOF when it must exit) and fd 1 (write:
 * the reply to the oldest request it has read). Its release tells us that the
 * helper is gone.
 *
 * The helper reads and writes the caller's memory with process_vm_readv()
 * and process_vm_writev(), by the caller's pid. That is safe only while the
 * caller is blocked in its syscall: its pid cannot be reused and its memory
 * is what the request describes. So once the helper has read a request, the
 * caller does not return before one of these:
 *  - the reply: the helper is done with the caller's memory;
 *  - the channel's release: the helper has exited, and do_exit() drops the
 *    files after the mm, so it cannot reach any process any more;
 *  - the timeout: then bpfilter_umh_request() kills the helper and waits for
 *    the release as above.
 * Signals do not end that wait (it is TASK_IDLE: neither interruptible nor
 * counted as load or as a hung task); they are handled when the syscall
 * returns. Only a request the helper has not read yet is withdrawn on a
 * signal. As no caller leaves a request behind, each reply belongs to the
 * request being waited for.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/stringify.h>
#include <linux/anon_inodes.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/mount.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/umh.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "../../include/uapi/linux/bpfilter.h"
#include "umh.h"

#define BPFILTER_UMH_NAME	"bpfilter_umh"
#define BPFILTER_STOP_MS	2000	/* grace after EOF before SIGKILL */
#define BPFILTER_REAP_MS	5000	/* bound on waiting for a killed helper */
#define BPFILTER_LOG_MAX	200	/* longest helper log line we print */

/* One helper process and its channel. Two references: struct bpfilter_umh's
 * and the channel file's (dropped by its release).
 */
struct bpfilter_chan {
	struct kref ref;
	struct mutex lock;		/* protects the fields below */
	wait_queue_head_t wq;		/* the helper's reads, our waits */
	struct file *file;		/* only while starting the helper */
	struct pid *pid;		/* set before exec by umh_init_fds() */
	bool has_req;			/* req is queued, not read yet */
	bool has_reply;			/* reply is for the current request */
	bool closing;			/* reads return EOF: the helper exits */
	bool dead;			/* the file is released */
	unsigned int in_flight;		/* requests read, not answered yet */
	struct mbox_request req;
	struct mbox_reply reply;
};

static void chan_free(struct kref *ref)
{
	struct bpfilter_chan *chan = container_of(ref, struct bpfilter_chan, ref);

	put_pid(chan->pid);
	kfree(chan);
}

static ssize_t chan_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct bpfilter_chan *chan = file->private_data;
	ssize_t ret;

	if (count < sizeof(chan->req))
		return -EINVAL;
	for (;;) {
		mutex_lock(&chan->lock);
		if (chan->has_req || chan->closing)
			break;
		mutex_unlock(&chan->lock);
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(chan->wq, READ_ONCE(chan->has_req) ||
					       READ_ONCE(chan->closing));
		if (ret)
			return ret;
	}
	ret = 0;
	if (chan->closing)
		goto out_unlock;
	/* On a fault the request stays queued: the caller's wait times out. */
	ret = -EFAULT;
	if (copy_to_user(buf, &chan->req, sizeof(chan->req)))
		goto out_unlock;
	chan->has_req = false;
	chan->in_flight++;
	ret = sizeof(chan->req);
out_unlock:
	mutex_unlock(&chan->lock);
	return ret;
}

static ssize_t chan_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	struct bpfilter_chan *chan = file->private_data;
	struct mbox_reply reply;
	ssize_t ret;

	/* One reply per write(), whole: there is no partial reply state. */
	if (count != sizeof(reply))
		return -EINVAL;
	if (copy_from_user(&reply, buf, sizeof(reply)))
		return -EFAULT;
	mutex_lock(&chan->lock);
	ret = -EPROTO;
	if (!chan->in_flight)
		goto out_unlock;
	chan->in_flight--;
	chan->reply = reply;
	chan->has_reply = true;
	ret = count;
out_unlock:
	mutex_unlock(&chan->lock);
	wake_up_all(&chan->wq);
	return ret;
}

static __poll_t chan_poll(struct file *file, poll_table *wait)
{
	struct bpfilter_chan *chan = file->private_data;
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	poll_wait(file, &chan->wq, wait);
	if (READ_ONCE(chan->has_req) || READ_ONCE(chan->closing))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

static int chan_release(struct inode *inode, struct file *file)
{
	struct bpfilter_chan *chan = file->private_data;

	mutex_lock(&chan->lock);
	chan->dead = true;
	mutex_unlock(&chan->lock);
	wake_up_all(&chan->wq);
	kref_put(&chan->ref, chan_free);
	return 0;
}

/* No .owner: a module reference held by the helper's fds would make rmmod
 * fail before it could stop the helper. Instead, every release of these
 * files runs before bpfilter_umh_exit() returns: the helper's own fds are
 * closed by its exit, which we wait for, and ours are dropped with
 * __fput_sync() in umh_run_in_kthread().
 */
static const struct file_operations chan_fops = {
	.read		= chan_read,
	.write		= chan_write,
	.poll		= chan_poll,
	.release	= chan_release,
	.llseek		= noop_llseek,
};

static DEFINE_RATELIMIT_STATE(xt_lines, 5 * HZ, 100);

/* A line at @level without pr_fmt()'s prefix, as /dev/kmsg writes it. */
static __printf(2, 3) void log_verbatim(int level, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vprintk_emit(0, level, NULL, fmt, args);
	va_end(args);
}

/* The helper's stderr: each write() is one line, "<level>text", printed at
 * that level: errors and warnings ratelimited, routine success as debug
 * (dynamic debug: echo 'module bpfilter +p' > .../dynamic_debug/control).
 * BPFILTER_LOG_XT lines are x_tables' words, printed as they are.
 */
static ssize_t log_write(struct file *file, const char __user *buf,
			 size_t count, loff_t *ppos)
{
	static const char prefix[] = KBUILD_MODNAME ": ";
	char line[BPFILTER_LOG_MAX + 1];
	size_t len = min_t(size_t, count, BPFILTER_LOG_MAX);
	const char *msg = line;
	int level = LOGLEVEL_INFO;

	if (copy_from_user(line, buf, len))
		return -EFAULT;
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\0'))
		len--;
	line[len] = '\0';
	if (len >= 3 && msg[0] == '<' && msg[1] >= '0' && msg[1] <= '7' && msg[2] == '>') {
		level = msg[1] - '0';
		msg += 3;
	}
	if (!*msg)
		return count;
	if (str_has_prefix(msg, BPFILTER_LOG_XT)) {
		msg += strlen(BPFILTER_LOG_XT);
		/* The helper ratelimits these per message, as pr_*_ratelimited()
		 * is per call site; this bound only guards against a runaway.
		 */
		if (__ratelimit(&xt_lines))
			log_verbatim(level, "%s\n", msg);
		return count;
	}
	/* pr_fmt() names the module already: do not print it twice. */
	msg += str_has_prefix(msg, prefix);
	if (!*msg)
		return count;
	if (level <= LOGLEVEL_ERR)
		pr_err_ratelimited("helper: %s\n", msg);
	else if (level == LOGLEVEL_WARNING)
		pr_warn_ratelimited("helper: %s\n", msg);
	else if (level == LOGLEVEL_DEBUG)
		pr_debug("helper: %s\n", msg);
	else
		pr_info_ratelimited("helper: %s\n", msg);
	return count;
}

static const struct file_operations log_fops = {
	.write		= log_write,
	.llseek		= noop_llseek,
};

struct umh_sync_work {
	struct work_struct work;
	int (*fn)(void *arg);
	void *arg;
	int ret;
};

static void umh_sync_work_fn(struct work_struct *work)
{
	struct umh_sync_work *w = container_of(work, struct umh_sync_work, work);

	w->ret = w->fn(w->arg);
}

/* Run fn in a kernel thread and wait for it: on 6.1, __fput_sync() is a
 * BUG_ON outside kernel threads, and a plain fput() would defer our files'
 * release past the point where this module may be unloaded.
 */
static int umh_run_in_kthread(int (*fn)(void *arg), void *arg)
{
	struct umh_sync_work w = { .fn = fn, .arg = arg };

	INIT_WORK_ONSTACK(&w.work, umh_sync_work_fn);
	queue_work(system_unbound_wq, &w.work);
	flush_work(&w.work);
	destroy_work_on_stack(&w.work);
	return w.ret;
}

static int umh_fput_sync_fn(void *arg)
{
	__fput_sync(arg);
	return 0;
}

static void umh_fput_sync(struct file *file)
{
	if (file)
		umh_run_in_kthread(umh_fput_sync_fn, file);
}

static struct vfsmount *umh_mount(const char *name)
{
	struct file_system_type *type = get_fs_type(name);

	if (!type)
		return ERR_PTR(-ENODEV);
	/* tmpfs and bpf are built in (no owner), so get_fs_type() took no
	 * module reference; put_filesystem() is not exported anyway.
	 */
	return kern_mount(type);
}

/* Runs in a kthread: writes the helper binary and opens the helper's files. */
static int umh_write_blob(void *arg)
{
	struct bpfilter_umh *umh = arg;
	struct file *file;
	loff_t pos = 0;
	size_t done = 0;
	ssize_t n;
	int err = 0;

	file = file_open_root_mnt(umh->exe_mnt, BPFILTER_UMH_NAME,
				  O_CREAT | O_WRONLY | O_TRUNC | O_LARGEFILE, 0700);
	if (IS_ERR(file))
		return PTR_ERR(file);
	while (done < umh->blob_len) {
		n = kernel_write(file, umh->blob + done, umh->blob_len - done, &pos);
		if (n <= 0) {
			err = n ? n : -EIO;
			break;
		}
		done += n;
	}
	/* Synchronously: exec fails with ETXTBSY while a writer is open. */
	__fput_sync(file);
	if (err)
		return err;

	file = file_open_root_mnt(umh->exe_mnt, BPFILTER_UMH_NAME, O_RDONLY, 0);
	if (IS_ERR(file))
		return PTR_ERR(file);
	umh->exe = file;
	file = file_open_root_mnt(umh->exe_mnt, ".", O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(file))
		return PTR_ERR(file);
	umh->exe_dir = file;
	file = file_open_root_mnt(umh->state_mnt, ".", O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(file))
		return PTR_ERR(file);
	umh->state_dir = file;
	if (!umh->bpffs_mnt)
		return 0;
	file = file_open_root_mnt(umh->bpffs_mnt, ".", O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(file)) {
		pr_warn("cannot open the private bpffs (%ld): no pinned BPF objects\n",
			PTR_ERR(file));
		return 0;
	}
	umh->bpffs_dir = file;
	return 0;
}

/* Runs in a kthread: drops our references to the helper's files. */
static int umh_put_files(void *arg)
{
	struct bpfilter_umh *umh = arg;
	struct file **files[] = {
		&umh->exe, &umh->exe_dir, &umh->state_dir, &umh->bpffs_dir,
		&umh->log,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		if (*files[i])
			__fput_sync(*files[i]);
		*files[i] = NULL;
	}
	return 0;
}

/* The fd the helper's directory gets in the new process: the first free. */
static int umh_exe_dir_fd(struct bpfilter_umh *umh)
{
	return umh->bpffs_dir ? BPFILTER_BPFFS_FD + 1 : BPFILTER_BPFFS_FD;
}

static int umh_install_fd(struct file *file, int want, unsigned int flags)
{
	int fd = get_unused_fd_flags(flags);

	if (fd < 0)
		return fd;
	if (fd != want) {
		/* Our fresh fd table should be empty; never guess numbers. */
		put_unused_fd(fd);
		return -EBUSY;
	}
	fd_install(fd, get_file(file));
	return 0;
}

/* The exec init callback: runs in the new process before exec, with its own
 * copy of the (empty) kernel fd table, and installs the fds the ABI names.
 * The helper's directory goes last and close-on-exec: the exec path goes
 * through it, which makes the helper's comm "bpfilter_umh", not "3".
 */
static int umh_init_fds(struct subprocess_info *info, struct cred *new)
{
	struct bpfilter_umh *umh = info->data;
	struct bpfilter_chan *chan = umh->chan;
	struct file *files[] = {
		chan->file, chan->file, umh->log, umh->exe, umh->state_dir,
		umh->bpffs_dir,
	};
	int fd, err;

	/* First, so that a process that got any of our fds is waited for. */
	chan->pid = get_task_pid(current, PIDTYPE_PID);
	for (fd = 0; fd < ARRAY_SIZE(files) && files[fd]; fd++) {
		err = umh_install_fd(files[fd], fd, 0);
		if (err)
			return err;
	}
	return umh_install_fd(umh->exe_dir, umh_exe_dir_fd(umh), O_CLOEXEC);
}

static bool umh_exited(struct bpfilter_chan *chan)
{
	struct task_struct *task = NULL;

	if (!READ_ONCE(chan->dead))
		return false;
	if (chan->pid) {
		rcu_read_lock();
		task = pid_task(chan->pid, PIDTYPE_PID);
		rcu_read_unlock();
	}
	return !task;
}

static bool umh_wait_exit(struct bpfilter_chan *chan, unsigned int ms)
{
	unsigned int waited;

	for (waited = 0; waited < ms; waited += 5) {
		if (umh_exited(chan))
			return true;
		usleep_range(5000, 6000);
	}
	return umh_exited(chan);
}

/* Make the current helper exit (EOF, or SIGKILL if kill) and wait until it is
 * gone, so that two helpers never share the state. -EBUSY if it will not die.
 */
static int umh_stop(struct bpfilter_umh *umh, bool kill)
{
	struct bpfilter_chan *chan = umh->chan;
	pid_t nr = atomic_read(&umh->pid);

	if (!chan)
		return 0;
	mutex_lock(&chan->lock);
	chan->closing = true;
	mutex_unlock(&chan->lock);
	wake_up_all(&chan->wq);
	if (!kill) {
		if (umh_wait_exit(chan, BPFILTER_STOP_MS))
			goto reaped;
		pr_warn("helper pid %d ignored EOF: killing it\n", nr);
	}
	if (chan->pid)
		kill_pid(chan->pid, SIGKILL, 1);
	if (!umh_wait_exit(chan, BPFILTER_REAP_MS)) {
		pr_err("helper pid %d does not exit after SIGKILL\n", nr);
		return -EBUSY;
	}
reaped:
	atomic_set(&umh->pid, 0);
	umh->chan = NULL;
	kref_put(&chan->ref, chan_free);
	return 0;
}

/* Queue one request and wait for its reply. 0 with *status set, or the
 * channel's error: -EAGAIN if the helper died before reading the request
 * (safe to resend), -ECONNRESET if it died after, -EINTR (a signal before the
 * helper read it), -ETIMEDOUT. See the top of this file for why a signal does
 * not end the wait once the helper has read the request.
 */
static int umh_submit(struct bpfilter_umh *umh, const struct mbox_request *req,
		      struct mbox_reply *reply)
{
	struct bpfilter_chan *chan = umh->chan;
	long timeout = umh->timeout_ms ? msecs_to_jiffies(umh->timeout_ms) :
					 MAX_SCHEDULE_TIMEOUT;
	unsigned long deadline = jiffies + timeout;
	long left;
	int err;

	mutex_lock(&chan->lock);
	if (chan->dead) {
		mutex_unlock(&chan->lock);
		return -EAGAIN;
	}
	chan->req = *req;
	chan->has_req = true;
	chan->has_reply = false;
	mutex_unlock(&chan->lock);
	wake_up_all(&chan->wq);

	left = wait_event_interruptible_timeout(chan->wq,
						READ_ONCE(chan->has_reply) ||
						READ_ONCE(chan->dead), timeout);

	mutex_lock(&chan->lock);
	if (left < 0 && chan->has_req && !chan->dead) {
		/* Never read: withdraw it, the helper never saw the caller. */
		chan->has_req = false;
		mutex_unlock(&chan->lock);
		return -EINTR;
	}
	if (left < 0 && !chan->has_reply && !chan->dead) {
		/* Read: the helper may be in the caller's memory now. */
		mutex_unlock(&chan->lock);
		if (timeout == MAX_SCHEDULE_TIMEOUT) {
			wait_event_idle(chan->wq, READ_ONCE(chan->has_reply) ||
					READ_ONCE(chan->dead));
		} else {
			left = (long)(deadline - jiffies);
			if (left > 0)
				wait_event_idle_timeout(chan->wq,
							READ_ONCE(chan->has_reply) ||
							READ_ONCE(chan->dead), left);
		}
		mutex_lock(&chan->lock);
	}
	if (chan->has_reply) {
		/* Even after a signal: the work is done, report it. */
		chan->has_reply = false;
		*reply = chan->reply;
		err = 0;
	} else if (chan->has_req) {
		/* Never read: withdraw it, nothing to resynchronise. */
		chan->has_req = false;
		err = chan->dead ? -EAGAIN : -ETIMEDOUT;
	} else if (chan->dead) {
		err = -ECONNRESET;
	} else {
		/* Read and not answered in time: the caller kills the helper. */
		err = -ETIMEDOUT;
	}
	mutex_unlock(&chan->lock);
	return err;
}

static int umh_start(struct bpfilter_umh *umh)
{
	struct mbox_request ping = {
		.is_set = BPFILTER_MBOX_CONTROL,
		.cmd = BPFILTER_CTL_PING,
	};
	struct subprocess_info *info;
	struct bpfilter_chan *chan;
	char path[48];
	struct mbox_reply reply;
	struct file *file;
	int status = 0;
	int err;

	chan = kzalloc(sizeof(*chan), GFP_KERNEL);
	if (!chan)
		return -ENOMEM;
	kref_init(&chan->ref);
	mutex_init(&chan->lock);
	init_waitqueue_head(&chan->wq);
	file = anon_inode_getfile("[bpfilter-mbox]", &chan_fops, chan, O_RDWR);
	if (IS_ERR(file)) {
		kfree(chan);
		return PTR_ERR(file);
	}
	kref_get(&chan->ref);		/* the file's */
	chan->file = file;
	umh->chan = chan;

	/* The tmpfs has no path: exec through an fd of the new process. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d/" BPFILTER_UMH_NAME,
		 umh_exe_dir_fd(umh));
	err = -ENOMEM;
	info = call_usermodehelper_setup(path, umh->argv, umh->envp,
					 GFP_KERNEL, umh_init_fds, NULL, umh);
	if (info)
		err = call_usermodehelper_exec(info, UMH_WAIT_EXEC);
	chan->file = NULL;
	umh_fput_sync(file);		/* now only the helper holds it */
	if (err) {
		pr_err("cannot run the helper: %d\n", err);
		goto stop;
	}
	atomic_set(&umh->pid, pid_nr(chan->pid));

	err = umh_submit(umh, &ping, &reply);
	status = reply.status;
	if (err == -EAGAIN)
		err = -ECONNRESET;	/* died before reading it */
	else if (!err && status)
		err = -EPROTO;
	if (err) {
		pr_err("helper pid %d failed its health check: %d (status %d)\n",
		       atomic_read(&umh->pid), err, status);
		goto stop;
	}
	umh->starts++;
	if (umh->starts == 1)
		pr_info("helper started, pid %d\n", atomic_read(&umh->pid));
	else
		pr_warn("helper restarted, pid %d (start %u)\n",
			atomic_read(&umh->pid), umh->starts);
	return 0;

stop:
	umh_stop(umh, true);
	return err;
}

/* A helper that is gone (crash, kill -9) is replaced; its state stays. */
static int umh_ensure(struct bpfilter_umh *umh)
{
	int err;

	if (umh->chan && !READ_ONCE(umh->chan->dead))
		return 0;
	if (umh->chan) {
		pr_warn("helper pid %d is gone: restarting it\n",
			atomic_read(&umh->pid));
		err = umh_stop(umh, true);
		if (err)
			return err;
	}
	return umh_start(umh);
}

int bpfilter_umh_request(struct bpfilter_umh *umh, struct mbox_request *req,
			 struct mbox_reply *reply)
{
	struct mbox_reply r = { .flags = BPFILTER_UMH_NO_REPLY };
	int tries;
	int err;

	if (mutex_lock_interruptible(&umh->lock))
		return -EINTR;
	for (tries = 0; tries < 2; tries++) {
		err = umh_ensure(umh);
		if (err)
			break;
		err = umh_submit(umh, req, &r);
		if (err != -EAGAIN)
			break;
	}
	if (err == -EAGAIN)
		err = -ECONNRESET;
	if (err == -ETIMEDOUT) {
		struct bpfilter_chan *chan = umh->chan;

		pr_warn("helper pid %d did not answer cmd %u in %u ms: restarting it\n",
			atomic_read(&umh->pid), req->cmd, umh->timeout_ms);
		kref_get(&chan->ref);
		if (!umh_stop(umh, true))
			umh_ensure(umh);
		else	/* Still alive after SIGKILL: it may still reach the caller. */
			wait_event_idle(chan->wq, READ_ONCE(chan->dead));
		kref_put(&chan->ref, chan_free);
	} else if (err == -ECONNRESET) {
		pr_warn("helper died while handling cmd %u\n", req->cmd);
	}
	mutex_unlock(&umh->lock);
	if (err) {
		r.flags = BPFILTER_UMH_NO_REPLY;
		r.tables = 0;
	}
	if (reply)
		*reply = r;
	return err ? err : r.status;
}

static void umh_release(struct bpfilter_umh *umh)
{
	umh_run_in_kthread(umh_put_files, umh);
	if (!IS_ERR_OR_NULL(umh->bpffs_mnt))
		kern_unmount(umh->bpffs_mnt);
	if (!IS_ERR_OR_NULL(umh->state_mnt))
		kern_unmount(umh->state_mnt);
	if (!IS_ERR_OR_NULL(umh->exe_mnt))
		kern_unmount(umh->exe_mnt);
	umh->bpffs_mnt = NULL;
	umh->state_mnt = NULL;
	umh->exe_mnt = NULL;
	if (umh->cred)
		put_cred(umh->cred);
	umh->cred = NULL;
}

int bpfilter_umh_init(struct bpfilter_umh *umh, const void *blob, size_t len)
{
	struct file *log;
	int err;

	mutex_init(&umh->lock);
	umh->argv[0] = BPFILTER_UMH_NAME;
	umh->envp[0] = "HOME=/";
	umh->envp[1] = "PATH=/sbin:/bin:/usr/sbin:/usr/bin";
	/* conntrack's --ctexpire counts seconds of HZ jiffies. */
	umh->envp[2] = "BPFILTER_HZ=" __stringify(HZ);
	/* Lines with their level: routine ones become pr_debug(), see log_write(). */
	umh->envp[3] = "BPFILTER_LOG=module";
	umh->envp[4] = (char *)umh->fault_env;
	umh->blob = blob;
	umh->blob_len = len;

	umh->cred = prepare_kernel_cred(&init_task);
	if (!umh->cred) {
		err = -ENOMEM;
		goto release;
	}
	umh->exe_mnt = umh_mount("tmpfs");
	if (IS_ERR(umh->exe_mnt)) {
		err = PTR_ERR(umh->exe_mnt);
		goto release;
	}
	umh->state_mnt = umh_mount("tmpfs");
	if (IS_ERR(umh->state_mnt)) {
		err = PTR_ERR(umh->state_mnt);
		goto release;
	}
	umh->bpffs_mnt = umh_mount("bpf");
	if (IS_ERR(umh->bpffs_mnt)) {
		pr_warn("no private bpffs (%ld): BPF programs will not survive a helper restart\n",
			PTR_ERR(umh->bpffs_mnt));
		umh->bpffs_mnt = NULL;
	}
	log = anon_inode_getfile("[bpfilter-log]", &log_fops, NULL, O_WRONLY);
	if (IS_ERR(log)) {
		err = PTR_ERR(log);
		goto release;
	}
	umh->log = log;
	err = umh_run_in_kthread(umh_write_blob, umh);
	if (err) {
		pr_err("cannot write the helper into its tmpfs: %d\n", err);
		goto release;
	}

	mutex_lock(&umh->lock);
	err = umh_start(umh);
	mutex_unlock(&umh->lock);
	if (err)
		goto stop;
	return 0;

stop:
	/* The helper may be alive even though it failed its start. */
	bpfilter_umh_exit(umh);
	return err;
release:
	umh_release(umh);
	return err;
}

ssize_t bpfilter_umh_read_state(struct bpfilter_umh *umh, const char *name, void *buf,
				size_t len)
{
	const struct cred *old;
	struct file *file;
	loff_t pos = 0;
	ssize_t n;

	if (IS_ERR_OR_NULL(umh->state_mnt) || !umh->cred)
		return -ENOENT;
	/* The caller may be anyone with CAP_NET_ADMIN in a user namespace of
	 * its own: the helper's files are not its to open, they are ours.
	 */
	old = override_creds(umh->cred);
	file = file_open_root_mnt(umh->state_mnt, name, O_RDONLY | O_LARGEFILE, 0);
	revert_creds(old);
	if (IS_ERR(file))
		return PTR_ERR(file);
	n = kernel_read(file, buf, len, &pos);
	fput(file);
	return n;
}

void bpfilter_umh_exit(struct bpfilter_umh *umh)
{
	mutex_lock(&umh->lock);
	/* Our files' code must outlive every user of them: never give up. */
	while (umh_stop(umh, false))
		pr_err("waiting for the helper to exit before unloading\n");
	umh_release(umh);
	mutex_unlock(&umh->lock);
}
