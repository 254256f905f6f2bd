-- spate.lua - Wireshark/tshark dissector for the Spate protocol, version 1
-- (docs/protocol.md). Every message type, with fields for display filters:
--
--   spate.seq, spate.client_id, spate.flags.server, spate.flags.auth,
--   spate.count, spate.auth.nonce, spate.auth.mac (the trailer of an
--   authenticated datagram; the MAC is shown, not verified: that needs
--   the client's key)
--   spate.msg.type == 1 (EVENT) ... 6 (NOTIFY)
--   spate.event.id, spate.event.lon, spate.event.lat (1e-7 degree),
--   spate.event.lon_deg, spate.event.lat_deg, spate.keyword,
--   spate.attr.name, spate.attr.value
--   spate.sub.id, spate.sub.min_lon ... spate.sub.max_lat, spate.sub.dest_ip,
--   spate.sub.dest_port, spate.cons.name, spate.cons.op, spate.cons.value
--   spate.ack.req_type, spate.ack.code, spate.ack.req_seq, spate.ack.id
--   spate.notify.event_id, spate.notify.n_subs, spate.notify.sub_id
--
-- Use:  tshark -X lua_script:tools/wireshark/spate.lua -r capture.pcap -Y spate
-- or copy it into ~/.local/lib/wireshark/plugins/. UDP port 47100 is
-- registered, and a heuristic finds Spate datagrams on any other port
-- (magic 0x5350, version 1, length = UDP payload).
-- Lengths are checked as the decoder in lib/proto/spate_proto.c does; what is
-- wrong is flagged with expert info instead of being guessed at.

local spate = Proto("spate", "Spate publish/subscribe")

local msg_types = { [1] = "EVENT", [2] = "SUB_ADD", [3] = "SUB_DEL", [4] = "ACK",
                    [5] = "NACK", [6] = "NOTIFY" }
local ops = { [1] = ">=", [2] = "<=", [3] = ">", [4] = "<", [5] = "=", [6] = "!=" }
-- The codes of lib/proto/spate_err.h (tests/tools/dissector.sh keeps them equal).
local err_codes = {
	[0] = "OK", [1] = "BAD_LENGTH", [2] = "BAD_MAGIC", [3] = "BAD_VERSION",
	[4] = "TRUNCATED", [5] = "BAD_COORD", [6] = "INVERTED_RECT",
	[7] = "TOO_MANY_KEYWORDS", [8] = "KEYWORD_TOO_LONG", [9] = "EMPTY_KEYWORD",
	[10] = "BAD_KEYWORD", [11] = "TOO_MANY_CONSTRAINTS", [12] = "BAD_OP",
	[13] = "BAD_VALUE", [14] = "TOO_MANY_ATTRS", [15] = "UNKNOWN_TYPE",
	[16] = "DUPLICATE_ID", [17] = "UNKNOWN_ID", [18] = "NOT_OWNER",
	[19] = "OVER_QUOTA", [20] = "NO_MEMORY", [21] = "BAD_FLAGS",
	[22] = "TOO_MANY_MESSAGES", [23] = "BAD_SYNTAX", [24] = "BAD_ID",
	[25] = "TRAILING_DATA", [26] = "NOT_ALLOWED", [27] = "OUT_OF_DOMAIN",
	[28] = "AUTH_REQUIRED", [29] = "AUTH_FAILED", [30] = "AUTH_REPLAY", [31] = "RATE_LIMITED",
	[32] = "RESERVED_CLIENT", [33] = "OVERLOADED",
}

local F = {
	magic = ProtoField.uint16("spate.magic", "Magic", base.HEX),
	version = ProtoField.uint8("spate.version", "Version"),
	flags = ProtoField.uint8("spate.flags", "Flags", base.HEX),
	server = ProtoField.bool("spate.flags.server", "Sent by a server", 8, nil, 0x01),
	auth = ProtoField.bool("spate.flags.auth", "Authenticated (40-byte trailer)", 8, nil, 0x02),
	auth_trailer = ProtoField.none("spate.auth", "Authentication trailer"),
	auth_nonce = ProtoField.uint64("spate.auth.nonce", "Nonce"),
	auth_mac = ProtoField.bytes("spate.auth.mac", "HMAC-SHA256 (not verified here)"),
	length = ProtoField.uint16("spate.length", "Length"),
	count = ProtoField.uint16("spate.count", "Messages"),
	client_id = ProtoField.uint32("spate.client_id", "Client id"),
	seq = ProtoField.uint32("spate.seq", "Sequence"),
	msg = ProtoField.none("spate.msg", "Message"),
	msg_type = ProtoField.uint8("spate.msg.type", "Type", base.DEC, msg_types),
	msg_flags = ProtoField.uint8("spate.msg.flags", "Message flags", base.HEX),
	msg_length = ProtoField.uint16("spate.msg.length", "Message length"),
	reserved = ProtoField.uint16("spate.reserved", "Reserved", base.HEX),
	keyword = ProtoField.string("spate.keyword", "Keyword", base.UNICODE),
	-- EVENT
	ev_id = ProtoField.uint64("spate.event.id", "Event id"),
	ev_lon = ProtoField.int32("spate.event.lon", "Longitude (1e-7 degree)"),
	ev_lat = ProtoField.int32("spate.event.lat", "Latitude (1e-7 degree)"),
	ev_lon_deg = ProtoField.double("spate.event.lon_deg", "Longitude (degrees)"),
	ev_lat_deg = ProtoField.double("spate.event.lat_deg", "Latitude (degrees)"),
	ev_n_kw = ProtoField.uint8("spate.event.n_kw", "Keywords"),
	ev_n_attr = ProtoField.uint8("spate.event.n_attr", "Attributes"),
	attr_name = ProtoField.string("spate.attr.name", "Attribute"),
	attr_value = ProtoField.double("spate.attr.value", "Value"),
	-- SUB_ADD, SUB_DEL
	sub_id = ProtoField.uint64("spate.sub.id", "Subscription id"),
	min_lon = ProtoField.int32("spate.sub.min_lon", "Min longitude (1e-7 degree)"),
	min_lat = ProtoField.int32("spate.sub.min_lat", "Min latitude (1e-7 degree)"),
	max_lon = ProtoField.int32("spate.sub.max_lon", "Max longitude (1e-7 degree)"),
	max_lat = ProtoField.int32("spate.sub.max_lat", "Max latitude (1e-7 degree)"),
	dest_ip = ProtoField.ipv4("spate.sub.dest_ip", "Notify address (0 = sender)"),
	dest_port = ProtoField.uint16("spate.sub.dest_port", "Notify port (0 = sender)"),
	sub_n_kw = ProtoField.uint8("spate.sub.n_kw", "Keywords"),
	sub_n_cons = ProtoField.uint8("spate.sub.n_cons", "Constraints"),
	cons_name = ProtoField.string("spate.cons.name", "Constraint attribute"),
	cons_op = ProtoField.uint8("spate.cons.op", "Operator", base.DEC, ops),
	cons_value = ProtoField.double("spate.cons.value", "Bound"),
	-- ACK, NACK
	req_type = ProtoField.uint8("spate.ack.req_type", "Request type", base.DEC, msg_types),
	code = ProtoField.uint8("spate.ack.code", "Code", base.DEC, err_codes),
	req_seq = ProtoField.uint32("spate.ack.req_seq", "Request sequence"),
	ack_id = ProtoField.uint64("spate.ack.id", "Id"),
	-- NOTIFY
	n_event = ProtoField.uint64("spate.notify.event_id", "Event id"),
	n_subs = ProtoField.uint16("spate.notify.n_subs", "Subscriptions"),
	n_sub = ProtoField.uint64("spate.notify.sub_id", "Subscription id"),
}
local fl = {}
for _, f in pairs(F) do fl[#fl + 1] = f end
spate.fields = fl

local E = {
	short = ProtoExpert.new("spate.short", "Truncated", expert.group.MALFORMED, expert.severity.ERROR),
	length = ProtoExpert.new("spate.bad_length", "Length disagrees with the data",
	                         expert.group.MALFORMED, expert.severity.ERROR),
	type = ProtoExpert.new("spate.unknown_type", "Unknown message type",
	                       expert.group.MALFORMED, expert.severity.WARN),
	nack = ProtoExpert.new("spate.nack", "Request refused", expert.group.RESPONSE_CODE,
	                       expert.severity.NOTE),
}
spate.experts = { E.short, E.length, E.type, E.nack }

-- A u8-length string ("kw" or "name"); returns the offset after it, or
-- nil when it runs past `stop`.
local function str8(buf, off, stop, tree, field)
	if off + 1 > stop then return nil end
	local n = buf(off, 1):uint()
	if off + 1 + n > stop then return nil end
	tree:add(field, buf(off + 1, n))
	return off + 1 + n, buf(off + 1, n):string()
end

-- n strings (str8, as field) from p, each followed by `extra` bytes that
-- add(offset) puts in the tree (keywords: none; an event's attributes:
-- the value; a subscription's constraints: the operator and the value).
-- The offset after them, or nil when they overrun stop.
local function str8_list(buf, p, stop, t, n, field, extra, add)
	for _ = 1, n do
		p = str8(buf, p, stop, t, field)
		if p == nil or p + extra > stop then return nil end
		if add then add(p) end
		p = p + extra
	end
	return p
end

local function deg(v) return v / 1e7 end

local bodies = {}

bodies[1] = function(buf, off, stop, t) -- EVENT
	if stop - off < 20 then return false end
	t:add(F.ev_id, buf(off, 8))
	local lon, lat = buf(off + 8, 4):int(), buf(off + 12, 4):int()
	t:add(F.ev_lon, buf(off + 8, 4))
	t:add(F.ev_lat, buf(off + 12, 4))
	t:add(F.ev_lon_deg, buf(off + 8, 4), deg(lon)):set_generated()
	t:add(F.ev_lat_deg, buf(off + 12, 4), deg(lat)):set_generated()
	local n_kw, n_attr = buf(off + 16, 1):uint(), buf(off + 17, 1):uint()
	t:add(F.ev_n_kw, buf(off + 16, 1))
	t:add(F.ev_n_attr, buf(off + 17, 1))
	t:add(F.reserved, buf(off + 18, 2))
	local p = str8_list(buf, off + 20, stop, t, n_kw, F.keyword, 0)
	p = p and str8_list(buf, p, stop, t, n_attr, F.attr_name, 8,
		function(q) t:add(F.attr_value, buf(q, 8)) end)
	if p == nil then return false end
	return p == stop, "id=" .. buf(off, 8):uint64():tonumber()
end

bodies[2] = function(buf, off, stop, t) -- SUB_ADD
	if stop - off < 32 then return false end
	t:add(F.sub_id, buf(off, 8))
	t:add(F.min_lon, buf(off + 8, 4))
	t:add(F.min_lat, buf(off + 12, 4))
	t:add(F.max_lon, buf(off + 16, 4))
	t:add(F.max_lat, buf(off + 20, 4))
	t:add(F.dest_ip, buf(off + 24, 4))
	t:add(F.dest_port, buf(off + 28, 2))
	local n_kw, n_cons = buf(off + 30, 1):uint(), buf(off + 31, 1):uint()
	t:add(F.sub_n_kw, buf(off + 30, 1))
	t:add(F.sub_n_cons, buf(off + 31, 1))
	local p = str8_list(buf, off + 32, stop, t, n_kw, F.keyword, 0)
	p = p and str8_list(buf, p, stop, t, n_cons, F.cons_name, 9, function(q)
		t:add(F.cons_op, buf(q, 1))
		t:add(F.cons_value, buf(q + 1, 8))
	end)
	if p == nil then return false end
	return p == stop, "id=" .. buf(off, 8):uint64():tonumber()
end

bodies[3] = function(buf, off, stop, t) -- SUB_DEL
	if stop - off ~= 8 then return false end
	t:add(F.sub_id, buf(off, 8))
	return true, "id=" .. buf(off, 8):uint64():tonumber()
end

local function ack(buf, off, stop, t, is_nack)
	if stop - off ~= 16 then return false end
	t:add(F.req_type, buf(off, 1))
	local c = t:add(F.code, buf(off + 1, 1))
	if is_nack then c:add_proto_expert_info(E.nack, "Refused: " ..
		(err_codes[buf(off + 1, 1):uint()] or tostring(buf(off + 1, 1):uint()))) end
	t:add(F.reserved, buf(off + 2, 2))
	t:add(F.req_seq, buf(off + 4, 4))
	t:add(F.ack_id, buf(off + 8, 8))
	return true, "id=" .. buf(off + 8, 8):uint64():tonumber() ..
		(is_nack and (" " .. (err_codes[buf(off + 1, 1):uint()] or "?")) or "")
end
bodies[4] = function(buf, off, stop, t) return ack(buf, off, stop, t, false) end
bodies[5] = function(buf, off, stop, t) return ack(buf, off, stop, t, true) end

bodies[6] = function(buf, off, stop, t) -- NOTIFY
	if stop - off < 12 then return false end
	t:add(F.n_event, buf(off, 8))
	local n = buf(off + 8, 2):uint()
	t:add(F.n_subs, buf(off + 8, 2))
	t:add(F.reserved, buf(off + 10, 2))
	if stop - off ~= 12 + 8 * n then return false end
	for i = 0, n - 1 do
		t:add(F.n_sub, buf(off + 12 + 8 * i, 8))
	end
	return true, "event=" .. buf(off, 8):uint64():tonumber() .. " subs=" .. n
end

local function looks_like_spate(buf)
	return buf:len() >= 16 and buf(0, 2):uint() == 0x5350 and buf(2, 1):uint() == 1 and
		buf(4, 2):uint() == buf:len()
end

function spate.dissector(buf, pinfo, tree)
	local len = buf:len()
	if len < 16 or buf(0, 2):uint() ~= 0x5350 then return 0 end
	pinfo.cols.protocol = "Spate"
	local root = tree:add(spate, buf(), "Spate")
	root:add(F.magic, buf(0, 2))
	root:add(F.version, buf(2, 1))
	local ft = root:add(F.flags, buf(3, 1))
	ft:add(F.server, buf(3, 1))
	ft:add(F.auth, buf(3, 1))
	-- An authenticated datagram's messages end where its trailer begins
	-- (docs/protocol.md, "Authenticated datagrams").
	local authed = bit.band(buf(3, 1):uint(), 0x02) ~= 0
	local total = len
	if authed then
		if len < 56 then
			root:add_proto_expert_info(E.short, "Too short for the auth trailer")
			authed = false
		else
			len = len - 40
		end
	end
	local lt = root:add(F.length, buf(4, 2))
	if buf(4, 2):uint() ~= total then lt:add_proto_expert_info(E.length) end
	local count = buf(6, 2):uint()
	root:add(F.count, buf(6, 2))
	root:add(F.client_id, buf(8, 4))
	root:add(F.seq, buf(12, 4))
	local info, p = {}, 16
	for _ = 1, count do
		if p + 4 > len then
			root:add_proto_expert_info(E.short, "Fewer messages than announced")
			break
		end
		local mtype, mlen = buf(p, 1):uint(), buf(p + 2, 2):uint()
		local name = msg_types[mtype] or ("type " .. mtype)
		local sane = mlen >= 4 and p + mlen <= len
		local mt = root:add(F.msg, buf(p, sane and mlen or (len - p)))
		mt:set_text(name)
		mt:add(F.msg_type, buf(p, 1))
		mt:add(F.msg_flags, buf(p + 1, 1))
		local ml = mt:add(F.msg_length, buf(p + 2, 2))
		if not sane then
			ml:add_proto_expert_info(E.length)
			break
		end
		local body = bodies[mtype]
		local summary = name
		if body == nil then
			mt:add_proto_expert_info(E.type)
		else
			local ok, what = body(buf, p + 4, p + mlen, mt)
			if not ok then mt:add_proto_expert_info(E.length) end
			if what then summary = name .. " " .. what end
		end
		info[#info + 1] = summary
		p = p + mlen
	end
	if p < len then root:add_proto_expert_info(E.length, "Trailing bytes") end
	if authed then
		local at = root:add(F.auth_trailer, buf(len, 40))
		at:add(F.auth_nonce, buf(len, 8))
		at:add(F.auth_mac, buf(len + 8, 32))
		info[#info + 1] = "AUTH nonce=" .. buf(len, 8):uint64():tonumber()
	end
	pinfo.cols.info = table.concat(info, ", ")
	return total
end

local function heuristic(buf, pinfo, tree)
	if not looks_like_spate(buf) then return false end
	spate.dissector(buf, pinfo, tree)
	return true
end

DissectorTable.get("udp.port"):add(47100, spate)
spate:register_heuristic("udp", heuristic)
