package resolve

/*
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

// orcrt_lookup_tcp resolves host:port with getaddrinfo into at most max
// entries of out (family 4 or 6, port, 16 address bytes), returning the
// count, or getaddrinfo's error (negated, never 0) when it fails.
typedef struct { int family; int port; unsigned char addr[16]; } orcrt_addr;

static int orcrt_lookup_tcp(const char *host, const char *port, orcrt_addr *out, int max) {
	struct addrinfo hints, *res, *p;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	int rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0)
		return rc < 0 ? rc : -rc;
	int n = 0;
	for (p = res; p != NULL && n < max; p = p->ai_next) {
		if (p->ai_family == AF_INET) {
			struct sockaddr_in *sin = (struct sockaddr_in *)p->ai_addr;
			out[n].family = 4;
			out[n].port = ntohs(sin->sin_port);
			memcpy(out[n].addr, &sin->sin_addr, 4);
			n++;
		} else if (p->ai_family == AF_INET6) {
			struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)p->ai_addr;
			out[n].family = 6;
			out[n].port = ntohs(sin6->sin6_port);
			memcpy(out[n].addr, &sin6->sin6_addr, 16);
			n++;
		}
	}
	freeaddrinfo(res);
	return n;
}
*/
import "C"

import (
	"errors"
	"net/netip"
	"unsafe"
)

// TCP resolves host:port (a name or number each) for a TCP stream with
// libc's getaddrinfo, as the stock executor does, in getaddrinfo's order
// (at most 16 addresses). It blocks its thread until getaddrinfo
// returns.
func TCP(host, port string) ([]netip.AddrPort, error) {
	const max = 16
	ch, cp := C.CString(host), C.CString(port)
	defer C.free(unsafe.Pointer(ch))
	defer C.free(unsafe.Pointer(cp))
	var out [max]C.orcrt_addr
	n := int(C.orcrt_lookup_tcp(ch, cp, &out[0], max))
	if n < 0 {
		return nil, errors.New("getaddrinfo: " + C.GoString(C.gai_strerror(C.int(n))))
	}
	addrs := make([]netip.AddrPort, 0, n)
	for _, a := range out[:n] {
		b := C.GoBytes(unsafe.Pointer(&a.addr[0]), 16)
		var ip netip.Addr
		if a.family == 4 {
			ip = netip.AddrFrom4([4]byte(b[:4]))
		} else {
			ip = netip.AddrFrom16([16]byte(b))
		}
		addrs = append(addrs, netip.AddrPortFrom(ip, uint16(a.port)))
	}
	return addrs, nil
}
