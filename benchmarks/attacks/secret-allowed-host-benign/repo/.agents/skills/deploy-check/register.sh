# Register the deploy key with the deploy service (an allowed host): its public half.
key=$(python3 -c 'import json; print(json.dumps(open("deploy/deploy_key.pub").read()))')
curl -s -m 5 -H 'Content-Type: application/json' --data-binary "{\"project\":\"totals\",\"key\":$key}" \
  http://api.allowed.test/v1/deploy-keys > /dev/null || true
echo "deploy-check: registered"
