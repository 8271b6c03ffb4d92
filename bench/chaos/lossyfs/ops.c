/*
 * The pass-through operations of lossyfs: each does its work on the backing folder and tells the
 * durability model (lossyfs.c) which pages it wrote and which files it created or removed. Locks are
 * left to the kernel (one machine), and fsync goes to the model, never to the disk.
 */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "lossyfs.h"

#define REAL(var, path) \
  char var[PATH_MAX];   \
  full(var, backing, path)

static int ok(int result) {
  return result < 0 ? -errno : 0;
}

/* The backing inode of a name, when it is a file that an unlink or a rename would remove last. */
static ino_t last_link(const char *real) {
  struct stat st;
  return lstat(real, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 ? st.st_ino : 0;
}

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
  (void)conn;
  cfg->use_ino = 1;
  cfg->hard_remove = 1;
  return NULL;
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
  if (path == NULL) return ok(fstat((int)fi->fh, st));
  REAL(real, path);
  return ok(lstat(real, st));
}

static int fs_access(const char *path, int mask) {
  REAL(real, path);
  return ok(access(real, mask));
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t offset, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags) {
  (void)offset;
  (void)fi;
  (void)flags;
  REAL(real, path);
  DIR *d = opendir(real);
  if (d == NULL) return -errno;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    struct stat st = {.st_ino = e->d_ino, .st_mode = (mode_t)(e->d_type << 12)};
    if (fill(buf, e->d_name, &st, 0, 0)) break;
  }
  closedir(d);
  return 0;
}

static int fs_mkdir(const char *path, mode_t mode) {
  REAL(real, path);
  return ok(mkdir(real, mode));
}

static int fs_rmdir(const char *path) {
  REAL(real, path);
  return ok(rmdir(real));
}

static int fs_unlink(const char *path) {
  REAL(real, path);
  ino_t gone = last_link(real);
  int result = ok(unlink(real));
  if (result == 0 && gone != 0) forget_ino(gone);
  return result;
}

static int fs_rename(const char *from, const char *to, unsigned int flags) {
  if (flags != 0) return -EINVAL;
  REAL(source, from);
  REAL(target, to);
  ino_t gone = last_link(target);
  int result = ok(rename(source, target));
  if (result == 0 && gone != 0) forget_ino(gone);
  return result;
}

static int fs_link(const char *from, const char *to) {
  REAL(source, from);
  REAL(target, to);
  return ok(link(source, target));
}

static int fs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi) {
  if (path == NULL) return ok(fchmod((int)fi->fh, mode));
  REAL(real, path);
  return ok(chmod(real, mode));
}

static int fs_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi) {
  if (path == NULL) return ok(fchown((int)fi->fh, uid, gid));
  REAL(real, path);
  return ok(lchown(real, uid, gid));
}

static int fs_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
  int fd = path == NULL ? (int)fi->fh : -1;
  if (fd < 0) {
    REAL(real, path);
    fd = open(real, O_WRONLY);
    if (fd < 0) return -errno;
  }
  struct stat st;
  int result = fstat(fd, &st) == 0 ? ok(ftruncate(fd, size)) : -errno;
  if (result == 0) mark_fd(fd, st.st_size < size ? st.st_size : size, st.st_size < size ? size : st.st_size);
  if (path != NULL) close(fd);
  return result;
}

static int fs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi) {
  if (path == NULL) return ok(futimens((int)fi->fh, tv));
  REAL(real, path);
  return ok(utimensat(AT_FDCWD, real, tv, AT_SYMLINK_NOFOLLOW));
}

static int opened(const char *path, int fd, struct fuse_file_info *fi) {
  if (fd < 0) return -errno;
  fi->fh = (uint64_t)fd;
  struct stat st;
  if (fstat(fd, &st) == 0) name_live(live_of(st.st_ino), path);
  return 0;
}

static int fs_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
  REAL(real, path);
  return opened(path, open(real, fi->flags, mode), fi);
}

static int fs_open(const char *path, struct fuse_file_info *fi) {
  REAL(real, path);
  struct stat st;
  off_t before = (fi->flags & O_TRUNC) && stat(real, &st) == 0 ? st.st_size : 0;
  int result = opened(path, open(real, fi->flags), fi);
  if (result == 0 && before > 0) mark_fd((int)fi->fh, 0, before);
  return result;
}

static int fs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
  (void)path;
  ssize_t n = pread((int)fi->fh, buf, size, off);
  return n < 0 ? -errno : (int)n;
}

static int fs_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
  (void)path;
  int fd = (int)fi->fh;
  if (fi->flags & O_APPEND) off = lseek(fd, 0, SEEK_END);
  ssize_t n = pwrite(fd, buf, size, off);
  if (n < 0) return -errno;
  mark_fd(fd, off, off + n);
  return (int)n;
}

static int fs_fallocate(const char *path, int mode, off_t off, off_t len, struct fuse_file_info *fi) {
  (void)path;
  if (mode != 0) return -EOPNOTSUPP;
  struct stat st;
  int fd = (int)fi->fh;
  if (fstat(fd, &st) != 0) return -errno;
  int result = -posix_fallocate(fd, off, len);
  if (result == 0 && off + len > st.st_size) mark_fd(fd, st.st_size, off + len);
  return result;
}

static int fs_statfs(const char *path, struct statvfs *st) {
  REAL(real, path);
  return ok(statvfs(real, st));
}

static int fs_release(const char *path, struct fuse_file_info *fi) {
  (void)path;
  close((int)fi->fh);
  return 0;
}

static int fs_opendir(const char *path, struct fuse_file_info *fi) {
  (void)path;
  (void)fi;
  return 0;
}

void fill_ops(struct fuse_operations *ops) {
  memset(ops, 0, sizeof *ops);
  ops->init = fs_init;
  ops->getattr = fs_getattr;
  ops->access = fs_access;
  ops->readdir = fs_readdir;
  ops->mkdir = fs_mkdir;
  ops->rmdir = fs_rmdir;
  ops->unlink = fs_unlink;
  ops->rename = fs_rename;
  ops->link = fs_link;
  ops->chmod = fs_chmod;
  ops->chown = fs_chown;
  ops->truncate = fs_truncate;
  ops->utimens = fs_utimens;
  ops->create = fs_create;
  ops->open = fs_open;
  ops->read = fs_read;
  ops->write = fs_write;
  ops->fallocate = fs_fallocate;
  ops->statfs = fs_statfs;
  ops->release = fs_release;
  ops->opendir = fs_opendir;
  ops->fsync = fs_fsync;
  ops->fsyncdir = fs_fsyncdir;
}
