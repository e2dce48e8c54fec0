#!/usr/bin/env bash
# Resident memory of a binary idle and after a little work: started with an
# empty database, 20 posts written, 3 s for their vectors, three views of
# stored posts and one new text. Usage: benches/idle_rss.sh BINARY PORT
bin=$1; port=$2; dir=$(mktemp -d); cd "$(dirname "$0")/.."
LINKUP__SERVER__ADDR=127.0.0.1:$port LINKUP__POSTS__DB_PATH=$dir/posts.db LINKUP__LOG__LEVEL=warn $bin >/dev/null 2>&1 &
pid=$!
for i in $(seq 50); do curl -s -o /dev/null localhost:$port/healthz && break; sleep 0.2; done
r0=$(grep VmRSS /proc/$pid/status | awk '{print $2}')
for i in $(seq 1 20); do
  curl -s -o /dev/null -X PUT localhost:$port/api/posts/p$i -H 'content-type: application/json' -d "{\"authorId\":\"u\",\"authorName\":\"K\",\"text\":\"Question $i about the VPN client and the 회의실 예약 on floor $i\",\"tags\":[],\"category\":\"question\",\"lat\":37.5,\"lng\":127.0,\"createdAt\":\"2026-11-01T00:00:00Z\",\"expiresAt\":\"2099-01-01T00:00:00Z\"}"
done
sleep 3
for i in 1 2 3; do curl -s -o /dev/null localhost:$port/api/posts/p$i/suggestions; done
curl -s -o /dev/null -X POST localhost:$port/api/suggestions -H 'content-type: application/json' -d '{"postId":"x","text":"사내 식당 메뉴는 어디서 보나요?"}'
sleep 1
r1=$(grep VmRSS /proc/$pid/status | awk '{print $2}')
kill $pid; wait $pid 2>/dev/null; rm -rf $dir
echo "$bin start ${r0} kB, after 20 posts and views ${r1} kB"
