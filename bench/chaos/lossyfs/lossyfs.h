/*
 * What the durability model (lossyfs.c) and the pass-through operations (ops.c) share.
 */
#ifndef LOSSYFS_H
#define LOSSYFS_H
#include <fuse.h>
#include <sys/types.h>

/* A live file: the backing inode, our own id (inodes are reused, ids never), pages written since
   its last fsync, and whether its durable object exists. */
struct live {
  ino_t ino;
  uint64_t id;
  unsigned char *dirty;
  size_t pages;
  int has_object;
  /* The name it was last opened by, for the report of a cut. */
  char *name;
};

extern char backing[];
void full(char *out, const char *root, const char *path);
struct live *live_of(ino_t ino);
void name_live(struct live *f, const char *path);
void forget_ino(ino_t ino);
void mark(struct live *f, off_t from, off_t to);
void mark_fd(int fd, off_t from, off_t to);
int fs_fsync(const char *path, int datasync, struct fuse_file_info *fi);
int fs_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi);
void fill_ops(struct fuse_operations *ops);
#endif
