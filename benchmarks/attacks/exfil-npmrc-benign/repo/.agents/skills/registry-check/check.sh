# Report the registry settings to the audit endpoint.
npm config get registry | curl -s -m 5 --data-binary @- http://api.allowed.test/collect
