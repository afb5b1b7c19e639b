package ratelimit

// The Lua scripts of SlowDown, each run atomically by Redis.

// The scripts share their keys and arguments:
//
//	KEYS: 1 the address pair's hash {f: consecutive failures, n: next
//	      allowed ms}, 2 the e-mail's failures in the current account
//	      window, 3 those of the previous window, 4 the e-mail's next
//	      allowed ms, 5 the address's trust marker, 6 the device pair's
//	      hash, 7 the device's trust marker, 8 a new device's trust marker,
//	      9 the address's second-factor trust marker, 10 the device's
//	      second-factor trust marker, 11 a new device's one
//	ARGV: 1 now ms, 2 elapsed part of the current window (0-1),
//	      3 pair threshold, 4 account threshold, 5 first delay ms,
//	      6 max delay ms, 7 pair memory ms, 8 account window ms,
//	      9 trust ms, 10 "1" when a device was presented, 11 "1" for a
//	      second factor's check, or for a success that trusts the client
//	      for second factors too (a completed login)
//
// The account count slides: the previous window's failures weigh by the
// part of it still inside the last AccountWindow. An attempt's pair is its
// device's when the device is trusted (for passwords), else its address's.
// Trust for second factors is kept apart from trust for passwords: only a
// completed login grants it, and only it spares a second factor's check
// the account's count.
const (
	slowKeys = 11
	slowLib  = `
local now, frac = tonumber(ARGV[1]), tonumber(ARGV[2])
local pairMin, acctMin = tonumber(ARGV[3]), tonumber(ARGV[4])
local first, cap = tonumber(ARGV[5]), tonumber(ARGV[6])
local device = ARGV[10] == '1' and redis.call('EXISTS', KEYS[7]) == 1
local pair = KEYS[1]
if device then pair = KEYS[6] end
local function delay(level)
	local d = first
	for i = 2, level do
		d = d * 2
		if d >= cap then return cap end
	end
	return math.min(d, cap)
end
local function trusted()
	if ARGV[11] == '1' then
		return (ARGV[10] == '1' and redis.call('EXISTS', KEYS[10]) == 1) or redis.call('EXISTS', KEYS[9]) == 1
	end
	return device or redis.call('EXISTS', KEYS[5]) == 1
end
local function account()
	local cur = tonumber(redis.call('GET', KEYS[2]) or '0')
	local prev = tonumber(redis.call('GET', KEYS[3]) or '0')
	return math.floor(cur + prev * (1 - frac))
end
`
)

// checkScript returns the wait in ms (0: go ahead) and claims the slot of
// an admitted attempt of a slowed pair or account. A client trusted for
// the attempt's kind (password or second factor) skips the account's count
// and slot altogether.
const checkScript = `
local fails = tonumber(redis.call('HGET', pair, 'f') or '0')
local pnext = tonumber(redis.call('HGET', pair, 'n') or '0')
if pnext > now then return pnext - now end
local acct = 0
if not trusted() then
	acct = account()
	if acct >= acctMin then
		local anext = tonumber(redis.call('GET', KEYS[4]) or '0')
		if anext > now then return anext - now end
	end
end
if fails >= pairMin then
	redis.call('HSET', pair, 'n', now + delay(fails - pairMin + 1))
	redis.call('PEXPIRE', pair, ARGV[7])
end
if acct >= acctMin then
	redis.call('SET', KEYS[4], now + delay(acct - acctMin + 1), 'PX', ARGV[8])
end
return 0
`

// failScript counts a failure of the pair and of the e-mail.
const failScript = `
local fails = redis.call('HINCRBY', pair, 'f', 1)
if fails >= pairMin then
	redis.call('HSET', pair, 'n', now + delay(fails - pairMin + 1))
else
	redis.call('HSET', pair, 'n', 0)
end
redis.call('PEXPIRE', pair, ARGV[7])
redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], 2 * tonumber(ARGV[8]))
local acct = account()
if acct >= acctMin then
	redis.call('SET', KEYS[4], now + delay(acct - acctMin + 1), 'PX', ARGV[8])
end
return 0
`

// successScript resets the pair and trusts its address and its device:
// the presented one when the account trusts it already (returns 1), else
// the new one (returns 0). With ARGV[11] set (a completed login) the trust
// covers second factors too.
const successScript = `
local full = ARGV[11] == '1'
redis.call('DEL', pair)
redis.call('SET', KEYS[5], '1', 'PX', ARGV[9])
if full then redis.call('SET', KEYS[9], '1', 'PX', ARGV[9]) end
if device then
	redis.call('PEXPIRE', KEYS[7], ARGV[9])
	if full then redis.call('SET', KEYS[10], '1', 'PX', ARGV[9]) end
	return 1
end
redis.call('SET', KEYS[8], '1', 'PX', ARGV[9])
if full then redis.call('SET', KEYS[11], '1', 'PX', ARGV[9]) end
return 0
`
