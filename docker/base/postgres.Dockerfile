# Stand-in for postgres:15-bookworm from Debian's postgresql-15 package (docker/base-images.sh
# builds it). It honours POSTGRES_PASSWORD, POSTGRES_USER and POSTGRES_DB on an empty data
# directory, as the public image's entrypoint does, and runs as the postgres user.
ARG BASE
FROM ${BASE}
RUN mkdir -p /etc/postgresql-common/createcluster.d \
  && echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.d/no-main-cluster.conf \
  && apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
  && rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data LANG=C.UTF-8
RUN mkdir -p "$PGDATA" /var/run/postgresql \
  && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql && chmod 700 "$PGDATA"
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
USER postgres
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
