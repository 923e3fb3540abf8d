# admit in a container: the same install script the project's CI runs on a bare machine, in its
# --container mode (the app, its production dependencies and the build; no database, no unit).
# Containers cannot run on the project's own machines, so CI tests the script, not this file.
FROM node:22-bookworm-slim
COPY . /src
RUN /src/deploy/install.sh --container --prefix /opt/admit && rm -rf /src
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 ADMIT_DATA_DIR=/opt/admit/data
WORKDIR /opt/admit/app
USER admit
EXPOSE 3000
VOLUME /opt/admit/data
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:3000/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "bin/admit.mjs", "serve"]
