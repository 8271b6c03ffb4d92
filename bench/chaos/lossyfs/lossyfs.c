/*
 * lossyfs: a FUSE file system that forgets, for the power-cut trials. Every operation goes to a
 * backing folder (the page cache, so to speak); a file's content and its name become durable on its
 * fsync/fdatasync, a directory's entries on the directory's fsync. SIGUSR1 is the power cut: the
 * file system unmounts without saving anything, and the next mount rebuilds the backing folder from
 * what was durable. A clean unmount saves everything, as a clean shutdown would.
 *
 * usage: lossyfs <backing> <state> <mountpoint>   (state holds `names` and `objects/<id>`)
 */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <fuse.h>
#include <fuse_lowlevel.h>
#include <limits.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lossyfs.h"

#define PAGE 4096
#define MAX_FILES 4096
#define MAX_NAMES 4096
/* A durable name: a file (its object id) or a directory. */
struct name {
  char *path;
  uint64_t id;
  int dir;
  mode_t mode;
};

char backing[PATH_MAX], state[PATH_MAX];
static struct live files[MAX_FILES];
static int nfiles;
static struct name names[MAX_NAMES];
static int nnames;
static uint64_t next_id = 1;
static volatile sig_atomic_t cut;

void full(char *out, const char *root, const char *path) {
  snprintf(out, PATH_MAX, "%s%s", root, path);
}

static void object_path(char *out, uint64_t id) {
  snprintf(out, PATH_MAX, "%s/objects/%llu", state, (unsigned long long)id);
}

struct live *live_of(ino_t ino) {
  for (int i = 0; i < nfiles; i++)
    if (files[i].ino == ino) return &files[i];
  if (nfiles == MAX_FILES) return NULL;
  struct live *f = &files[nfiles++];
  memset(f, 0, sizeof *f);
  f->ino = ino;
  f->id = next_id++;
  return f;
}

void name_live(struct live *f, const char *path) {
  if (f == NULL || path == NULL || (f->name != NULL && strcmp(f->name, path) == 0)) return;
  free(f->name);
  f->name = strdup(path);
}

void forget_ino(ino_t ino) {
  for (int i = 0; i < nfiles; i++)
    if (files[i].ino == ino) {
      free(files[i].dirty);
      free(files[i].name);
      files[i] = files[--nfiles];
      return;
    }
}

void mark(struct live *f, off_t from, off_t to) {
  if (f == NULL || to <= from) return;
  size_t last = (size_t)((to - 1) / PAGE) + 1;
  if (last > f->pages) {
    size_t pages = last * 2;
    f->dirty = realloc(f->dirty, pages);
    memset(f->dirty + f->pages, 0, pages - f->pages);
    f->pages = pages;
  }
  memset(f->dirty + from / PAGE, 1, last - (size_t)(from / PAGE));
}

void mark_fd(int fd, off_t from, off_t to) {
  struct stat st;
  if (fstat(fd, &st) == 0) mark(live_of(st.st_ino), from, to);
}

static int copy_all(const char *from, const char *to, mode_t mode) {
  int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, mode & 07777);
  char buf[65536];
  ssize_t n = 0;
  if (in >= 0 && out >= 0)
    while ((n = read(in, buf, sizeof buf)) > 0)
      if (write(out, buf, (size_t)n) != n) n = -1;
  if (in >= 0) close(in);
  if (out >= 0) close(out);
  return in < 0 || out < 0 || n < 0 ? -1 : 0;
}

static void save_names(void) {
  char tmp[PATH_MAX], final[PATH_MAX];
  snprintf(tmp, sizeof tmp, "%s/names.tmp", state);
  snprintf(final, sizeof final, "%s/names", state);
  FILE *out = fopen(tmp, "w");
  if (out == NULL) return;
  for (int i = 0; i < nnames; i++)
    fprintf(out, "%c %llu %o %s\n", names[i].dir ? 'D' : 'F', (unsigned long long)names[i].id,
            (unsigned)names[i].mode, names[i].path);
  fclose(out);
  rename(tmp, final);
}

static int name_index(const char *path) {
  for (int i = 0; i < nnames; i++)
    if (strcmp(names[i].path, path) == 0) return i;
  return -1;
}

static void drop_name(int i) {
  free(names[i].path);
  names[i] = names[--nnames];
}

/* Removes a durable name, and everything under it when it is a directory. */
static void drop_tree(const char *name) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s", name);
  size_t len = strlen(path);
  for (int i = nnames - 1; i >= 0; i--)
    if (strcmp(names[i].path, path) == 0 || (strncmp(names[i].path, path, len) == 0 && names[i].path[len] == '/'))
      drop_name(i);
}

static void put_name(const char *path, uint64_t id, int dir, mode_t mode) {
  int i = name_index(path);
  if (i >= 0 && names[i].dir != dir) {
    drop_tree(path);
    i = -1;
  }
  if (i < 0) {
    if (nnames == MAX_NAMES) return;
    i = nnames++;
    names[i].path = strdup(path);
  }
  names[i].id = id;
  names[i].dir = dir;
  names[i].mode = mode;
}

/* A durable name needs durable parents: they are made durable with it. */
static void put_parents(const char *path) {
  char buf[PATH_MAX];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *slash = strchr(buf + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
    *slash = '\0';
    if (name_index(buf) < 0) {
      char real[PATH_MAX];
      struct stat st;
      full(real, backing, buf);
      if (stat(real, &st) == 0) put_name(buf, 0, 1, st.st_mode);
    }
    *slash = '/';
  }
}

/* Brings a file's durable object up to its backing content: the pages written since the last sync. */
static int sync_object(int fd, struct live *f) {
  char obj[PATH_MAX], self[64], buf[PAGE];
  struct stat st;
  snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
  fd = open(self, O_RDONLY);
  if (fd < 0 || fstat(fd, &st) != 0) return -EIO;
  object_path(obj, f->id);
  int out = open(obj, O_WRONLY | O_CREAT, 0600);
  if (out < 0) {
    close(fd);
    return -EIO;
  }
  size_t pages = (size_t)((st.st_size + PAGE - 1) / PAGE);
  for (size_t p = 0; p < pages; p++) {
    if (f->has_object && (p >= f->pages || !f->dirty[p])) continue;
    ssize_t n = pread(fd, buf, PAGE, (off_t)p * PAGE);
    if (n < 0 || pwrite(out, buf, (size_t)n, (off_t)p * PAGE) != n) {
      close(out);
      close(fd);
      return -EIO;
    }
  }
  int failed = ftruncate(out, st.st_size);
  close(out);
  close(fd);
  if (failed) return -EIO;
  if (f->dirty != NULL) memset(f->dirty, 0, f->pages);
  f->has_object = 1;
  return 0;
}

int fs_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
  (void)datasync;
  struct stat st;
  if (fstat((int)fi->fh, &st) != 0) return -errno;
  struct live *f = live_of(st.st_ino);
  if (f == NULL) return -ENOMEM;
  int result = sync_object((int)fi->fh, f);
  if (result != 0 || path == NULL) return result;
  /* The file's own name becomes durable with it, and a name it was renamed from goes. */
  for (int i = nnames - 1; i >= 0; i--)
    if (!names[i].dir && names[i].id == f->id && strcmp(names[i].path, path) != 0) drop_name(i);
  put_parents(path);
  put_name(path, f->id, 0, st.st_mode);
  save_names();
  return 0;
}

int fs_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi) {
  (void)datasync, (void)fi;
  char dirpath[PATH_MAX], child[PATH_MAX], real[PATH_MAX];
  snprintf(dirpath, sizeof dirpath, "%s", strcmp(path, "/") == 0 ? "" : path);
  full(real, backing, path);
  DIR *d = opendir(real);
  if (d == NULL) return -errno;
  size_t len = strlen(dirpath);
  /* Durable children that are gone (or are something else now) go. */
  for (int i = nnames - 1; i >= 0; i--) {
    const char *p = names[i].path;
    if (strncmp(p, dirpath, len) != 0 || p[len] != '/' || strchr(p + len + 1, '/') != NULL) continue;
    struct stat st;
    full(real, backing, p);
    if (lstat(real, &st) != 0 || (S_ISDIR(st.st_mode) != names[i].dir)) drop_tree(names[i].path), i = nnames;
  }
  struct stat self;
  full(real, backing, path);
  if (len > 0 && stat(real, &self) == 0) put_parents(path), put_name(path, 0, 1, self.st_mode);
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    struct stat st;
    snprintf(child, sizeof child, "%s/%s", dirpath, e->d_name);
    full(real, backing, child);
    if (lstat(real, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) put_name(child, 0, 1, st.st_mode);
    else if (S_ISREG(st.st_mode)) {
      struct live *f = live_of(st.st_ino);
      if (f == NULL) continue;
      for (int i = nnames - 1; i >= 0; i--)
        if (!names[i].dir && names[i].id == f->id && strcmp(names[i].path, child) != 0) {
          full(real, backing, names[i].path);
          struct stat other;
          if (lstat(real, &other) != 0 || other.st_ino != st.st_ino) drop_name(i);
        }
      put_name(child, f->id, 0, st.st_mode);
    }
  }
  closedir(d);
  save_names();
  return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st, (void)type;
  return ftw->level == 0 ? 0 : remove(path);
}

static int by_length(const void *a, const void *b) {
  return (int)strlen(((const struct name *)a)->path) - (int)strlen(((const struct name *)b)->path);
}

/* After a power cut (or any unmount): the backing folder becomes what was durable. */
static int restore(void) {
  char file[PATH_MAX], line[PATH_MAX + 64], real[PATH_MAX], obj[PATH_MAX];
  snprintf(file, sizeof file, "%s/names", state);
  FILE *in = fopen(file, "r");
  if (in == NULL) return errno == ENOENT ? 0 : -1;
  while (fgets(line, sizeof line, in) != NULL && nnames < MAX_NAMES) {
    char kind;
    unsigned long long id;
    unsigned mode;
    int used = 0;
    line[strcspn(line, "\n")] = '\0';
    if (sscanf(line, "%c %llu %o %n", &kind, &id, &mode, &used) < 3 || used == 0) continue;
    names[nnames++] = (struct name){strdup(line + used), id, kind == 'D', (mode_t)mode};
  }
  fclose(in);
  if (nftw(backing, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0) return -1;
  qsort(names, (size_t)nnames, sizeof names[0], by_length);
  for (int i = 0; i < nnames; i++) {
    full(real, backing, names[i].path);
    if (names[i].dir) {
      if (mkdir(real, names[i].mode & 07777) != 0 && errno != EEXIST) return -1;
      continue;
    }
    object_path(obj, names[i].id);
    if (access(obj, F_OK) == 0 ? copy_all(obj, real, names[i].mode) : close(creat(real, names[i].mode & 07777)))
      return -1;
  }
  return 0;
}

static int take(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)type;
  if (ftw->level == 0) return 0;
  const char *rel = path + strlen(backing);
  if (S_ISDIR(st->st_mode)) put_name(rel, 0, 1, st->st_mode);
  if (!S_ISREG(st->st_mode)) return 0;
  struct live *f = live_of(st->st_ino);
  char obj[PATH_MAX];
  if (f == NULL) return -1;
  object_path(obj, f->id);
  if (copy_all(path, obj, 0600) != 0) return -1;
  f->has_object = 1;
  put_name(rel, f->id, 0, st->st_mode);
  return 0;
}

/* Everything in the backing folder becomes durable (at mount, and at a clean unmount). */
static int snapshot(void) {
  char objects[PATH_MAX];
  while (nnames > 0) drop_name(0);
  while (nfiles > 0) forget_ino(files[0].ino);
  snprintf(objects, sizeof objects, "%s/objects", state);
  if (mkdir(objects, 0700) != 0 && errno != EEXIST) return -1;
  if (nftw(objects, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0) return -1;
  if (nftw(backing, take, 16, FTW_PHYS) != 0) return -1;
  save_names();
  return 0;
}

/* What the cut dropped: the pages written and never synced, per file (by the name it was opened by). */
static void report_cut(void) {
  size_t total = 0;
  printf("dropped");
  for (int i = 0; i < nfiles; i++) {
    size_t pages = 0;
    for (size_t p = 0; p < files[i].pages; p++) pages += files[i].dirty[p];
    if (pages > 0) printf(" %s:%zu", files[i].name != NULL ? files[i].name : "?", pages);
    total += pages;
  }
  printf(" total:%zu\n", total);
  fflush(stdout);
}

/* The power cut: the loop ends after the request in progress, and nothing more is saved. */
static struct fuse *the_fuse;
static void on_cut(int signal) {
  (void)signal;
  cut = 1;
  if (the_fuse != NULL) fuse_session_exit(fuse_get_session(the_fuse));
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: lossyfs <backing> <state> <mountpoint> [fuse options]\n");
    return 2;
  }
  if (realpath(argv[1], backing) == NULL || (mkdir(argv[2], 0700) != 0 && errno != EEXIST) ||
      realpath(argv[2], state) == NULL) {
    perror("lossyfs");
    return 2;
  }
  /* When the harness dies, the mount goes too (a clean unmount). */
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (restore() != 0 || snapshot() != 0) {
    fprintf(stderr, "lossyfs: could not restore or snapshot %s\n", backing);
    return 1;
  }
  struct fuse_operations ops;
  fill_ops(&ops);
  char *args[] = {argv[0], "-o", "default_permissions", "-d"};
  struct fuse_args fargs = FUSE_ARGS_INIT(getenv("LOSSYFS_DEBUG") != NULL ? 4 : 3, args);
  struct fuse *fuse = fuse_new(&fargs, &ops, sizeof ops, NULL);
  if (fuse == NULL || fuse_mount(fuse, argv[3]) != 0) return 1;
  the_fuse = fuse;
  struct sigaction sa = {0};
  sa.sa_handler = on_cut;
  sigaction(SIGUSR1, &sa, NULL);
  fuse_set_signal_handlers(fuse_get_session(fuse));
  fprintf(stdout, "mounted\n");
  fflush(stdout);
  int result = fuse_loop(fuse);
  fuse_remove_signal_handlers(fuse_get_session(fuse));
  fuse_unmount(fuse);
  fuse_destroy(fuse);
  if (!cut && snapshot() != 0) return 1;
  if (cut) report_cut();
  return result < 0 ? 1 : 0;
}
