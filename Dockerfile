# One image for every Crux service; the compose file picks the command.
FROM node:20-bookworm-slim
WORKDIR /app
RUN npm i -g pnpm@10.34.8
COPY . .
RUN pnpm install --frozen-lockfile
ENV NODE_ENV=production
CMD ["pnpm", "start"]
